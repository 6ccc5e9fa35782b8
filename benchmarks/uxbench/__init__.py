"""uxbench: every benchmark of the project, one program (`python -m uxbench --list` names them all).

A sweep (the paper's tables: filtering, propagation, inference; regimes; joint_filtering) exposes

    SIZES: dict[str, object]            # 'quick' and 'full' parameter sets
    tasks(size) -> list                 # independent, picklable units of work
    run_task(task) -> dict              # runs in a worker process (local pool or Dask)
    report(results, size, out_dir, meta)  # writes markdown tables, a summary CSV and PNG plots

Seeds live in the tasks, so a rerun reproduces the tables whatever executes them. `python -m uxbench`
saves each run's task results (report.save_run), so `--render` can draw the tables again from them.

A study (`python -m uxbench NAME [its options]`) exposes

    arguments(parser)                   # its options, added to `uxbench NAME`'s parser
    run(args) -> results                # measures
    report(results, args)               # writes its results files

Every results file opens with the environment block of uxbench.environment (commit, CPU, load, sizes).
The registry (`registry.py`) lists both kinds. The baselines the ux filter is measured against are in
`uxbench.baselines` (Python) and benchmarks/c (C).
"""
