"""Where the benchmarks' C library is: build/native/libuxbench.so under the repository root (built by
`make bench-lib` from benchmarks/c with the core's sources and flags), or the path in UXBENCH_LIB."""

from __future__ import annotations

import os
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]
BUILD_COMMAND = "make bench-lib"


def library_path() -> Path:
    env = os.environ.get("UXBENCH_LIB")
    return Path(env) if env else _REPO / "build" / "native" / "libuxbench.so"


def available() -> bool:
    return library_path().exists()


def missing(path: Path) -> FileNotFoundError:
    return FileNotFoundError(
        f"{path} is missing: run `{BUILD_COMMAND}` in the repository root "
        "(or point UXBENCH_LIB at a built libuxbench.so)"
    )
