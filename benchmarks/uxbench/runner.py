"""Execution of benchmark tasks: a local process pool by default, a Dask cluster on request."""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed

from tqdm import tqdm


def _single_threaded_numerics():
    # One BLAS/OpenMP thread per worker: workers already use every core, and timings stay comparable.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def _bar(iterable, total: int, desc: str):
    """A progress bar on stderr; redirected to a file it still reports, every 30 s, so a long sweep's log
    shows how far it got."""
    tty = sys.stderr.isatty()
    return tqdm(iterable, total=total, desc=desc, file=sys.stderr, mininterval=0.1 if tty else 30.0)


def _alone(task) -> bool:
    return isinstance(task, dict) and bool(task.get("alone"))


def execute(tasks, run_task, *, workers: int | None = None, scheduler: str | None = None, desc: str = "tasks") -> list:
    """Run `run_task` over `tasks`; results come back in task order, with a progress bar on stderr.

    A task marked `"alone": True` (a timing task) runs first, by itself, before any other task starts: a
    CPU-time median taken while another worker shares the cores (caches, memory bandwidth, a sibling
    hyperthread) moves by up to 2x between runs."""
    if not tasks:
        return []
    alone = [i for i, t in enumerate(tasks) if _alone(t)]
    rest = [i for i, t in enumerate(tasks) if not _alone(t)]
    results = [None] * len(tasks)
    for i in alone:
        results[i] = _execute_together([tasks[i]], run_task, 1, scheduler, f"{desc} (alone)")[0]
    for i, res in zip(rest, _execute_together([tasks[i] for i in rest], run_task, workers, scheduler, desc)):
        results[i] = res
    return results


def _execute_together(tasks, run_task, workers: int | None, scheduler: str | None, desc: str) -> list:
    if not tasks:
        return []
    if scheduler:
        return _execute_dask(tasks, run_task, scheduler, desc)
    _single_threaded_numerics()
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        return [run_task(t) for t in _bar(tasks, len(tasks), desc)]
    results = [None] * len(tasks)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_task, t): i for i, t in enumerate(tasks)}
        for fut in _bar(as_completed(futures), len(futures), desc):
            results[futures[fut]] = fut.result()
    return results


def _execute_dask(tasks, run_task, scheduler: str, desc: str) -> list:
    try:
        from distributed import Client, as_completed as dask_completed
    except ImportError:  # pragma: no cover - the pinned environment has it
        raise SystemExit("uxbench: --scheduler needs the 'distributed' package (pip install distributed)")
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as exc:
        raise SystemExit(f"uxbench: cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    with client:
        futures = client.map(run_task, tasks, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        results = [None] * len(tasks)
        for fut in _bar(dask_completed(futures), len(futures), desc):
            results[index[fut.key]] = fut.result()
    return results
