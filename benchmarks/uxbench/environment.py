"""The environment block every study's results carry, written once: the commit, the CPU, the load, the
Python, the date and the sizes the study ran at."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def commit(rev: str = "HEAD") -> str | None:
    """REV's short commit in this checkout (None outside git). A long study reads it as it starts, so that its
    results name the code that produced them, not a commit made while it ran."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", rev], cwd=REPO, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    name = out.stdout.strip() or None
    return f"{name}+dirty" if name and rev == "HEAD" and dirty() else name


def dirty() -> bool:
    """Whether tracked files outside benchmarks/results differ from HEAD: results measured then are of code no
    commit holds, and say so ("+dirty") rather than name HEAD."""
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)benchmarks/results"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return bool(out.stdout.strip())


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> float | None:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def block(sizes: dict | None = None, seconds: float | None = None) -> dict:
    """Where and when the numbers were taken (JSON-ready): a study calls it as it starts, and sets `seconds`
    when it ends."""
    return {
        "commit": commit(),
        "cpu": cpu_model(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_avg": load_average(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
        "sizes": dict(sizes or {}),
        "seconds": seconds,
    }


def line(env: dict) -> str:
    """The block as the one sentence a results file opens with."""
    return f"Measured on {describe(env)}."


def describe(env: dict) -> str:
    """The block in words (keys a block from an older run lacks are left out)."""
    cpu = env.get("cpu") or env.get("machine", "?")
    where = f"{cpu}, {env.get('cpus', '?')} CPUs"
    if env.get("load_avg") is not None:
        where += f", load average {env['load_avg']:.2f}"
    if env.get("commit"):
        where += f", commit {env['commit']}"
    if env.get("python"):
        where += f", Python {env['python']}"
    if env.get("date"):
        where += f", {env['date']}"
    if env.get("seconds") is not None:
        where += f", {env['seconds']:.0f} s"
    sizes = env.get("sizes")
    if sizes:
        where += "; " + ", ".join(f"{k} {v}" for k, v in sizes.items())
    return where
