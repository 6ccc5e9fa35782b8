"""uxbench: the paper's benchmark tables, regenerated side by side with the paper's numbers.

Each benchmark is one module exposing the same four names (see `registry.py`):

    SIZES: dict[str, object]            # 'quick' and 'full' parameter sets
    tasks(size) -> list                 # independent, picklable units of work
    run_task(task) -> dict              # runs in a worker process (local pool or Dask)
    report(results, size, out_dir)      # writes markdown tables, CSV/JSON and PNG plots

Seeds live in the tasks, so a rerun reproduces the tables whatever executes them.
"""
