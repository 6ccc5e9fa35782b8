"""The benchmarks `python -m uxbench` knows, in the order they run."""
import importlib
from pathlib import Path

# regimes last: its quick size adds well under a minute to `make bench`, its full size a few minutes to
# `make bench-full` (native core), so both keep it rather than leave it to be run by hand.
BENCHMARKS = ("filtering", "propagation", "inference", "regimes", "uxm")


def load(name: str):
    if name not in BENCHMARKS:
        raise SystemExit(f"uxbench: unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return importlib.import_module(f"uxbench.{name}")


def results_folder(name: str, size: str, root: Path) -> Path:
    """Where a benchmark's files go unless --out says: root/SIZE/NAME, or the folder (relative to root) its
    module names for that size in RESULTS_FOLDERS."""
    own = getattr(load(name), "RESULTS_FOLDERS", {})
    return (root / own[size]).resolve() if size in own else root / size / name
