"""exp, expm1, log, log1p, sin and cos exactly as the C core computes them (firmware/include/ux/uxm.h).

The core computes these itself, over IEEE +, −, ×, ÷ only, so every target gives the same bits; numpy's
and the C library's versions differ from them (and from each other, by CPU: numpy's AVX-512 loops) in the
last place now and then. The reference calls the core's functions through the host library (one ctypes
call per array, libuxm.so): measured against a numpy transcription of the same operations, that is both the
smaller code and the faster one (benchmarks/results/uxm.md).

Each function takes a float or an array and returns the same kind.
"""

from __future__ import annotations

import ctypes as C
import functools

import numpy as np

from ._library import uxm_library_path

FUNCTIONS = ("exp", "expm1", "log", "log1p", "sin", "cos")  # the order of uxm_apply (firmware/host/uxm_vec.c)


@functools.cache
def _lib():
    path = uxm_library_path()
    if not path.exists():
        raise FileNotFoundError(
            f"the reference's elementary functions are the C core's: {path} is missing "
            "— run `make uxm-lib` (or point UX_UXM_LIB at a built libuxm.so)"
        )
    lib = C.CDLL(str(path))
    lib.uxm_apply.argtypes = [C.c_int, C.c_void_p, C.c_void_p, C.c_size_t]
    lib.uxm_apply.restype = C.c_int
    for name in FUNCTIONS:
        fn = getattr(lib, "uxm_" + name)
        fn.argtypes, fn.restype = [C.c_double], C.c_double
    return lib


def _apply(which: int, x):
    if isinstance(x, (float, int)) and not isinstance(x, bool):
        return getattr(_lib(), "uxm_" + FUNCTIONS[which])(float(x))
    a = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(a)
    _lib().uxm_apply(which, a.ctypes.data, out.ctypes.data, a.size)
    return out if out.ndim else float(out)


def exp(x):
    return _apply(0, x)


def expm1(x):
    return _apply(1, x)


def log(x):
    return _apply(2, x)


def log1p(x):
    return _apply(3, x)


def sin(x):
    return _apply(4, x)


def cos(x):
    return _apply(5, x)
