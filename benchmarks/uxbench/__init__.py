"""uxbench: the paper's benchmark tables, regenerated side by side with the paper's numbers.

Each benchmark is one module exposing the same four names (see `registry.py`):

    SIZES: dict[str, object]            # 'quick' and 'full' parameter sets
    tasks(size) -> list                 # independent, picklable units of work
    run_task(task) -> dict              # runs in a worker process (local pool or Dask)
    report(results, size, out_dir, meta)  # writes markdown tables, a summary CSV and PNG plots

Seeds live in the tasks, so a rerun reproduces the tables whatever executes them. `python -m uxbench`
saves each run's task results (report.save_run), so `--render` can draw the tables again from them.
The baselines the ux filter is measured against are in `uxbench.baselines` (Python) and benchmarks/c (C).
"""
