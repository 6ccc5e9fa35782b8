"""python -m uxbench [NAME ...] [--quick | --full] [--only NAME ...] [--scheduler ADDRESS] [--out DIR] [--render | --rescore-density | --retime]
python -m uxbench STUDY [its options]     (python -m uxbench STUDY --help lists them)
python -m uxbench --list                  (every benchmark, one line each)"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import registry, report, runner

DEFAULT_OUT = report.RESULTS


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--list"]:
        for name in registry.NAMES:
            print(f"{name:20s} {registry.summary(name)}")
        return 0
    if argv and argv[0] in registry.STUDIES:
        return study(argv[0], argv[1:])
    return sweeps(argv)


def study(name: str, argv: list[str]) -> int:
    """One study: its options parsed here, then run and report (or its own main, for the two that keep one)."""
    module = registry.load(name)
    if hasattr(module, "main"):
        return module.main(argv) or 0
    p = argparse.ArgumentParser(prog=f"uxbench {name}", description=registry.summary(name))
    module.arguments(p)
    args = p.parse_args(argv)
    args.command = " ".join([".venv/bin/python -m uxbench", name, *argv])  # how to run it again, for its results
    return module.report(module.run(args), args) or 0  # a study that checks a verdict may return 1


def sweeps(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="uxbench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"run only these sweeps, as --only ({', '.join(registry.SWEEPS)}); with none, "
        f"{', '.join(registry.DEFAULT)}",
    )
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", dest="size", action="store_const", const="quick", help="minutes (default)")
    size.add_argument("--full", dest="size", action="store_const", const="full", help="the paper's counts")
    p.add_argument("--only", nargs="+", choices=registry.SWEEPS, help="run only these sweeps")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask distributed cluster, e.g. tcp://host:8786")
    p.add_argument("--workers", type=int, help="local worker processes (default: one per core)")
    p.add_argument("--out", type=Path, default=None, help="results folder (default: benchmarks/results/SIZE)")
    p.add_argument(
        "--render",
        action="store_true",
        help="run nothing: render the tables and plots again from the saved NAME_results.json.gz",
    )
    p.add_argument(
        "--rescore-density",
        action="store_true",
        help="filtering only: score the saved run's ux NLL again with the current filter density "
        "(the rest of the run is kept; refused if the filter itself changed), then render",
    )
    p.add_argument(
        "--retime",
        action="store_true",
        help="filtering only: time every configuration again (alone, as a whole run does) and keep the "
        "saved run's accuracy, then render (a timing disturbed by the machine, not the code)",
    )
    args = p.parse_args(argv)
    unknown = [n for n in args.names if n not in registry.SWEEPS]
    if unknown:
        p.error(
            f"unknown benchmark {', '.join(unknown)}; known: {', '.join(registry.NAMES)} "
            "(a study other than a sweep comes first, alone: `python -m uxbench STUDY [its options]`)"
        )
    args.only = list(dict.fromkeys((args.only or []) + args.names)) or None
    for flag in ("rescore_density", "retime"):
        if getattr(args, flag) and (args.render or set(args.only or registry.DEFAULT) != {"filtering"}):
            p.error(f"--{flag.replace('_', '-')} goes with --only filtering and without --render")
    if args.rescore_density and args.retime:
        p.error("--rescore-density and --retime are separate runs: one at a time")
    size = args.size or "quick"
    for name in args.only or registry.DEFAULT:
        bench = registry.load(name)
        folder = args.out / name if args.out else registry.results_folder(name, size, DEFAULT_OUT)
        params = bench.SIZES[size]
        if args.render:
            results, meta = report.load_run(folder, name)
        elif args.rescore_density:
            results, meta = report.load_run(folder, name)
            t0 = time.perf_counter()
            rows = bench.rescore_density(results, params, workers=args.workers)
            meta["density_rescored"] = {**report.run_meta(time.perf_counter() - t0), "rows": rows}
            results = report.save_run(folder, name, results, meta)
        elif args.retime:
            results, meta = report.load_run(folder, name)
            t0 = time.perf_counter()
            bench.retime(results, params)
            meta["retimed"] = report.run_meta(time.perf_counter() - t0)
            results = report.save_run(folder, name, results, meta)
        else:
            tasks = bench.tasks(params)
            t0 = time.perf_counter()
            print(f"uxbench: {name} ({size}): {len(tasks)} tasks", file=sys.stderr)
            results = runner.execute(tasks, bench.run_task, workers=args.workers, scheduler=args.scheduler, desc=name)
            meta = report.run_meta(time.perf_counter() - t0, {"size": size})
            results = report.save_run(folder, name, results, meta)
        verdict = bench.report(results, params, folder, meta)
        print(f"uxbench: {name} ({size}) → {folder}", file=sys.stderr)
        if isinstance(verdict, dict):  # a benchmark that checks targets says which it met
            for target, met in verdict.items():
                print(f"uxbench: {name}: {target}: {'met' if met else 'NOT met'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
