"""The outside check of our PF baseline: the `particles` library's bootstrap filter, in its own venv.

particles 0.4 requires numpy < 2 (and numba), which cannot live beside the project's numpy 2, so it
gets a virtual environment of its own with the pinned versions of `particles_requirements.txt`,
created on first use (build/particles-venv under the repository root, or UXBENCH_PARTICLES_VENV).
Traces go to the worker (`particles_worker.py`) as JSON, particle sets come back as .npz files, and
the metrics are computed here with uxemu.metrics — the same definitions as every other row.

If the environment cannot be built (no network to the package index, no wheel for this platform …),
`environment()` says why, and the benchmark reports the rows as not available with that reason. A
failed install is remembered for an hour (a stamp beside the venv), so one benchmark run does not
retry it in every task; concurrent tasks wait on a file lock while one of them installs.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "particles_requirements.txt"
WORKER = HERE / "particles_worker.py"
_REPO = HERE.parents[1]
INSTALL_TIMEOUT_S = 1200
FAILURE_MEMORY_S = 3600


def venv_dir() -> Path:
    env = os.environ.get("UXBENCH_PARTICLES_VENV")
    return Path(env) if env else _REPO / "build" / "particles-venv"


def _python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _pins() -> str:
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:16]


def _last_lines(text: str, n: int = 3) -> str:
    lines = [ln for ln in (text or "").strip().splitlines() if ln.strip() and not ln.startswith("WARNING")]
    return " / ".join(lines[-n:]) or "no output"


def environment() -> tuple[Path | None, str]:
    """(python of the particles venv, 'particles 0.4 (…)') or (None, why it is not available)."""
    venv = venv_dir()
    ready, failed = venv / f".ready-{_pins()}", venv.with_name(venv.name + f".failed-{_pins()}")
    if ready.exists():
        return _python(venv), ready.read_text().strip()
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.with_name(venv.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready.exists():
            return _python(venv), ready.read_text().strip()
        if failed.exists() and time.time() - failed.stat().st_mtime < FAILURE_MEMORY_S:
            return None, failed.read_text().strip()
        reason = _install(venv)
        if reason is None:
            probe = subprocess.run(
                [
                    str(_python(venv)),
                    "-c",
                    "import numpy, numba, particles; print("
                    "'particles 0.4 (numpy ' + numpy.__version__ + ', numba ' + numba.__version__ + ')')",
                ],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if probe.returncode == 0:
                ready.write_text(probe.stdout.strip() + "\n")
                return _python(venv), probe.stdout.strip()
            reason = f"particles does not import in its venv: {_last_lines(probe.stderr)}"
        failed.write_text(reason + "\n")
        return None, reason


def _install(venv: Path) -> str | None:
    """Create the venv and install the pins; None on success, else the reason."""
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(venv)],
        [str(_python(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(REQUIREMENTS)],
    ]
    for cmd in steps:
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"installing particles timed out after {INSTALL_TIMEOUT_S} s"
        except OSError as exc:
            return f"cannot run {cmd[0]}: {exc}"
        if done.returncode != 0:
            return (
                f"`{' '.join(Path(c).name if i == 0 else c for i, c in enumerate(cmd[:4]))} …` failed: "
                f"{_last_lines(done.stderr or done.stdout)}"
            )
    return None


def run(spec: dict) -> tuple[dict[int, dict[int, dict]] | None, str]:
    """Run the worker on `spec` (see particles_worker.py); per trace index, per N: the particle sets.

    Returns ({trace: {N: {'x': (R, T, N), 'w': (R, T, N), 'seconds': (R,)}}}, note) or (None, reason).
    """
    python, note = environment()
    if python is None:
        return None, note
    with tempfile.TemporaryDirectory(prefix="uxbench-particles-") as tmp:
        tmp = Path(tmp)
        (tmp / "in.json").write_text(json.dumps(spec))
        env = dict(
            os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", NUMBA_NUM_THREADS="1"
        )
        env.pop("PYTHONPATH", None)  # the worker must see its own numpy, not the project's
        done = subprocess.run(
            [str(python), str(WORKER), str(tmp / "in.json"), str(tmp / "out")], capture_output=True, text=True, env=env
        )
        if done.returncode != 0:
            return None, f"the particles worker failed: {_last_lines(done.stderr)}"
        out = {}
        for trace in spec["traces"]:
            with np.load(tmp / "out" / f"trace_{trace['index']}.npz") as f:
                out[trace["index"]] = {
                    int(n): {"x": f[f"x_{n}"], "w": f[f"w_{n}"], "seconds": f[f"seconds_{n}"]}
                    for n in spec["particles"]
                }
        return out, note
