"""The benchmarks `python -m uxbench` knows, in the order they run."""
import importlib

BENCHMARKS = ("filtering", "propagation", "inference")


def load(name: str):
    if name not in BENCHMARKS:
        raise SystemExit(f"uxbench: unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return importlib.import_module(f"uxbench.{name}")
