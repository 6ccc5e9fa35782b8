"""Where the C core's host libraries are: the native engine's (native.py) and the elementary functions'
(libm.py), found by the same rule; libm must not import native, which imports the reference."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGED_DIR = Path(__file__).resolve().parent / "_native"  # an installed package's build of the core
_REPO = Path(__file__).resolve().parents[2]


def library_path(float_build: bool = False) -> Path:
    """The library load() opens: $UX_NATIVE_LIB (…_FLOAT), else the package's, else the checkout's."""
    name = "libux_float.so" if float_build else "libux.so"
    return _find(os.environ.get("UX_NATIVE_LIB_FLOAT" if float_build else "UX_NATIVE_LIB"), name)


def uxm_library_path() -> Path:
    """The elementary functions alone (libuxm.so): $UX_UXM_LIB, else the package's, else the checkout's."""
    return _find(os.environ.get("UX_UXM_LIB"), "libuxm.so")


def _find(env: str | None, name: str) -> Path:
    if env:
        return Path(env)
    packaged = PACKAGED_DIR / name
    if packaged.exists():
        return packaged
    return _REPO / "build" / "native" / name
