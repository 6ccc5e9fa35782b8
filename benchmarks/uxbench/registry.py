"""The studies `python -m uxbench` knows: every benchmark of the project, one module of this package each.

Two shapes (uxbench/__init__.py):
- a sweep (SIZES, tasks, run_task, report): independent tasks run in a process pool or on Dask, their raw
  results saved compressed so that `--render` draws the tables again; `--quick` or `--full`;
- a study (arguments, run, report): its own options added to `python -m uxbench NAME`'s parser, `run(args)`
  measuring and `report(results, args)` writing the results files.
Two older studies, ab_cost and fit_starts, keep their own `main(argv)`.
"""

import importlib
from pathlib import Path

# The sweeps `python -m uxbench` runs, in this order, when no name is given (`make bench`, `make bench-full`).
# regimes last: its quick size adds well under a minute to `make bench`, its full size a few minutes to
# `make bench-full` (native core), so both keep it rather than leave it to be run by hand.
DEFAULT = ("filtering", "propagation", "inference", "regimes")
SWEEPS = DEFAULT + ("joint_filtering", "uxm")
STUDIES = (
    "evidence",
    "stderr_calibration",
    "joint_loglik",
    "joint_bearings",
    "joint_cells",
    "bearings_geometry",
    "joint_fits",
    "joint_twin_fits",
    "joint_gate",
    "joint_regimes",
    "nonlinear_traces",
    "user_models",
    "native_vs_reference",
    "pf_tuned",
    "ab_cost",
    "fit_starts",
    "firmware_costs",
    "libm_cycles",
    "stack_highwater",
    "link",
    "soak",
)
NAMES = SWEEPS + STUDIES


def load(name: str):
    if name not in NAMES:
        raise SystemExit(
            f"uxbench: unknown benchmark {name!r}; known: {', '.join(NAMES)} (`--list` says what each does)"
        )
    return importlib.import_module(f"uxbench.{name}")


def summary(name: str) -> str:
    """The first paragraph of the study's docstring on one line: what `--list` prints."""
    doc = (load(name).__doc__ or "").strip()
    return " ".join(doc.split("\n\n")[0].split())


def results_folder(name: str, size: str, root: Path) -> Path:
    """Where a sweep's files go unless --out says: root/SIZE/NAME, or the folder (relative to root) its
    module names for that size in RESULTS_FOLDERS."""
    own = getattr(load(name), "RESULTS_FOLDERS", {})
    return (root / own[size]).resolve() if size in own else root / size / name
