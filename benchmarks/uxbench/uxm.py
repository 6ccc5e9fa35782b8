"""The core's elementary functions (firmware/include/ux/uxm.h): accuracy against high precision and speed
against the C library (issue 39).

Cells (one task each): every function of uxemu.libm.FUNCTIONS, in double and in float, on each argument
range of RANGES: `points` arguments, uniform on the range or (kind "log10") 10^uniform. Scores per cell: the
largest error in ulps of the exact value's own precision, and the share of results that are the correctly
rounded value.

The exact value: the C library's long double function (64-bit significand, so its own error is ~2^-11 of
a double's ulp) screens every point; mpmath at 160 bits decides every point whose long double value lies
within SCREEN_MARGIN ulp of a rounding midpoint, and recomputes the RECHECK largest errors, so both scores
are mpmath's wherever the screen could be wrong.

Speed (one "alone" task, before the others): seconds per call of the core's function and of the C
library's (benchmarks/c/src/libm_speed.c, the same arguments through the same function pointer), on the
first range of each function.
"""

from __future__ import annotations

import ctypes as C
import functools
import math

import mpmath
import numpy as np

from uxemu._library import uxm_library_path
from uxemu.libm import FUNCTIONS

from . import clib
from .environment import REPO as ROOT

RANGES = {  # function -> [(kind, lo, hi)] per range, double
    "exp": [("uniform", -745.0, 709.7), ("uniform", -0.35, 0.35)],
    "expm1": [("uniform", -40.0, 40.0), ("uniform", -0.35, 0.35)],
    "log": [("log10", -320.0, 308.0), ("uniform", 0.7, 1.5)],
    "log1p": [("uniform", -0.999, 3.0), ("log10", -30.0, 300.0)],
    "sin": [("uniform", -10.0, 10.0), ("log10", 0.0, 308.0)],
    "cos": [("uniform", -10.0, 10.0), ("log10", 0.0, 308.0)],
}
FLOAT_RANGES = {  # the same within float's own range
    "exp": [("uniform", -103.0, 88.7), ("uniform", -0.35, 0.35)],
    "expm1": [("uniform", -17.0, 88.7), ("uniform", -0.35, 0.35)],
    "log": [("log10", -45.0, 38.0), ("uniform", 0.7, 1.5)],
    "log1p": [("uniform", -0.999, 3.0), ("log10", -30.0, 38.0)],
    "sin": [("uniform", -10.0, 10.0), ("log10", 0.0, 38.0)],
    "cos": [("uniform", -10.0, 10.0), ("log10", 0.0, 38.0)],
}
SCREEN_MARGIN = 2.0**-6  # ulp: far above long double's own error (~2^-11 ulp)
RECHECK = 64
MP_BITS = 160
SEED = 39
SPEED_POINTS = 100_000

SIZES = {
    "quick": {"name": "quick", "points": 20_000, "speed_rounds": 5},
    "full": {"name": "full", "points": 1_000_000, "speed_rounds": 20},  # the 10^6 per range
}
RESULTS_FOLDERS = {"full": "."}  # benchmarks/results/uxm.md (uxbench.registry.results_folder)


def arguments(name: str, r: int, float_build: bool, n: int) -> np.ndarray:
    kind, lo, hi = (FLOAT_RANGES if float_build else RANGES)[name][r]
    u = np.random.default_rng([SEED, FUNCTIONS.index(name), r, int(float_build)]).uniform(lo, hi, n)
    x = 10.0**u if kind == "log10" else u
    return x.astype(np.float32) if float_build else x


def range_label(name: str, r: int, float_build: bool) -> str:
    kind, lo, hi = (FLOAT_RANGES if float_build else RANGES)[name][r]
    return f"10^[{lo:g}, {hi:g}]" if kind == "log10" else f"[{lo:g}, {hi:g}]"


def tasks(size: dict) -> list[dict]:
    cells = [
        dict(size, fn=name, range=r, float_build=fb)
        for name in FUNCTIONS
        for fb in (False, True)
        for r in range(len(RANGES[name]))
    ]
    return [dict(size, speed=True, alone=True)] + cells


def _lib():
    lib = C.CDLL(str(uxm_library_path()))
    lib.uxm_apply.argtypes = lib.uxm_apply_float.argtypes = [C.c_int, C.c_void_p, C.c_void_p, C.c_size_t]
    return lib


def ours(name: str, x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    apply = _lib().uxm_apply_float if x.dtype == np.float32 else _lib().uxm_apply
    apply(FUNCTIONS.index(name), x.ctypes.data, out.ctypes.data, x.size)
    return out


def _exact_mp(name: str, x: float):
    with mpmath.workprec(MP_BITS):
        return getattr(mpmath, name)(mpmath.mpf(x))


def _ulp(y: np.ndarray, dtype) -> np.ndarray:
    """The ulp of each (rounded) exact value in the target precision; subnormals: the smallest step."""
    y = np.abs(y.astype(dtype))
    return np.spacing(np.where(y == 0, np.finfo(dtype).smallest_subnormal, y)).astype(np.longdouble)


def score(name: str, x: np.ndarray) -> dict:
    dtype = x.dtype
    got = ours(name, x)
    exact = getattr(np, name)(x.astype(np.longdouble))
    finite = np.isfinite(exact.astype(dtype)) & np.isfinite(got)
    x, got, exact = x[finite], got[finite], exact[finite]
    rounded = exact.astype(dtype)
    ulp = _ulp(exact, dtype)
    err = np.abs(got.astype(np.longdouble) - exact) / ulp
    exact_rounding = got == rounded
    # Near a midpoint the long double value cannot decide the rounding: mpmath does.
    frac = np.abs(exact - rounded.astype(np.longdouble)) / ulp
    doubtful = np.flatnonzero(np.abs(frac - 0.5) < SCREEN_MARGIN)
    for i in doubtful:
        e = _exact_mp(name, float(x[i]))
        exact_rounding[i] = got[i] == _round_mp(e, dtype)
    top = np.argsort(err)[-RECHECK:]
    for i in top:
        e = _exact_mp(name, float(x[i]))
        with mpmath.workprec(MP_BITS):  # divided in mpmath: a subnormal difference would round as a double
            err[i] = float(abs(mpmath.mpf(float(got[i])) - e) / mpmath.mpf(float(_ulp(np.array([float(e)]), dtype)[0])))
    worst = int(np.argmax(err))
    return {
        "points": int(x.size),
        "max_ulp": float(err[worst]),
        "worst_x": float(x[worst]),
        "correctly_rounded": float(np.mean(exact_rounding)),
        "mp_decided": int(doubtful.size),
    }


def _round_mp(e, dtype) -> float:
    with mpmath.workprec(24 if dtype == np.float32 else 53):
        return float(+e)


def speed(size: dict) -> list[dict]:
    lib = C.CDLL(str(clib.library_path()))
    fn = lib.uxb_libm_seconds_per_call
    fn.argtypes = [C.c_int, C.c_int, C.c_int, C.c_void_p, C.c_void_p, C.c_size_t, C.c_int]
    fn.restype = C.c_double
    rows = []
    for name in FUNCTIONS:
        for fb in (False, True):
            x = arguments(name, 0, False, SPEED_POINTS)
            xf = arguments(name, 0, True, SPEED_POINTS)
            t = [
                fn(FUNCTIONS.index(name), libc, int(fb), x.ctypes.data, xf.ctypes.data, x.size, size["speed_rounds"])
                for libc in (0, 1)
            ]
            rows.append({"fn": name, "float_build": fb, "ours_ns": 1e9 * t[0], "libc_ns": 1e9 * t[1]})
    return rows


# The alternative to calling the C build from the reference: the same operations transcribed in numpy
# (uxm_exp.c's exp; sin and cos would need the integer reduction as well). Timed against uxemu.libm.exp.
_LN2_HI, _LN2_LO = float.fromhex("0x1.62e42feep-1"), float.fromhex("0x1.a39ef35793c76p-33")
_INV_LN2, _SHIFT = float.fromhex("0x1.71547652b82fep0"), float.fromhex("0x1.8p52")
_TAYLOR = [1.0 / math.factorial(n) for n in range(6, 1, -1)]  # 1/6! … 1/2!
_EXP_TABLE = ROOT / "firmware" / "src" / "ux" / "uxm_exp_table.h"  # 2^(j/64) as hi, lo (scripts/codegen)


@functools.cache
def _exp2_table() -> np.ndarray:
    """The core's table of 2^(j/64), read once from its generated header: rows (hi, lo)."""
    import re

    block = _EXP_TABLE.read_text().split("UXM_EXP2[", 1)[1].split("};", 1)[0]  # the double table only
    words = re.findall(r"-?0x[0-9a-f]\.[0-9a-f]+p[+-]\d+", block)
    return np.array([float.fromhex(w) for w in words]).reshape(-1, 2)


def numpy_exp(x: np.ndarray) -> np.ndarray:
    """uxm_exp for −700 < x < 709, where the result is normal: its subnormal rounding and its special
    arguments are left out (a complete transcription would carry them too)."""
    table = _exp2_table()
    size = len(table)
    x = np.asarray(x, dtype=np.float64)
    nd = (x * (_INV_LN2 * size) + _SHIFT) - _SHIFT
    hi, lo = x - nd * (_LN2_HI / size), nd * (_LN2_LO / size)
    r = hi - lo
    c = (hi - r) - lo
    p = np.full_like(r, _TAYLOR[0])
    for coefficient in _TAYLOR[1:]:
        p = coefficient + r * p
    v = hi + (((r * r) * p + c * r) - lo)
    n = nd.astype(np.int64)
    j = n & (size - 1)
    k = (n - j) // size
    m = table[j, 0] + (table[j, 0] * v + table[j, 1])
    shift = np.where(k > 1000, 1000, np.where(k < -1000, -1000, 0))
    return np.ldexp(np.ldexp(m, k - shift), shift)  # two exact steps, as uxm_scale


def reference_speed() -> list[dict]:
    """µs per call of uxemu.libm.exp (one ctypes call into libuxm.so) and of numpy_exp, by array size."""
    import timeit

    from uxemu import libm

    x = arguments("exp", 0, False, 4096)
    x = x[(x > -700.0) & (x < 709.0)]
    assert np.array_equal(numpy_exp(x), libm.exp(x)), "the numpy transcription is not the core's exp"
    rows = []
    for n in (1, 64, 4096):
        a = x[:n]
        t = [min(timeit.repeat(lambda: f(a), number=200, repeat=5)) / 200 for f in (libm.exp, numpy_exp)]
        rows.append({"size": n, "ctypes_us": 1e6 * t[0], "numpy_us": 1e6 * t[1]})
    return rows


def run_task(task: dict):
    if task.get("speed"):
        return {"speed": speed(task), "reference_speed": reference_speed()}
    x = arguments(task["fn"], task["range"], task["float_build"], task["points"])
    return {**{k: task[k] for k in ("fn", "range", "float_build")}, **score(task["fn"], x)}


def report(results: list, size: dict, folder, meta: dict):
    """benchmarks/results/uxm.md (full size) and uxm.json."""
    import json
    from pathlib import Path

    folder = Path(folder)
    cells = [r for r in results if "speed" not in r]
    speed_rows = next(r["speed"] for r in results if "speed" in r)
    lines = [
        f"# The core's elementary functions: accuracy and speed ({size['name']})",
        "",
        "Generated by `python -m uxbench uxm"
        + (" --full" if size["name"] == "full" else "")
        + "` (benchmarks/uxbench/uxm.py), commit "
        + str(meta.get("commit"))
        + ".",
        "",
        f"Accuracy: {size['points']:,} arguments per function, precision and range; error in ulps of the "
        "exact value's own precision (mpmath where long double cannot decide); CR: share of results that "
        "are the correctly rounded value.",
        "",
        "| function | precision | range | max error (ulp) | at x | CR |",
        "|---|---|---|---:|---:|---:|",
    ]
    for c in cells:
        lines.append(
            f"| {c['fn']} | {'float' if c['float_build'] else 'double'} | "
            f"{range_label(c['fn'], c['range'], c['float_build'])} | {c['max_ulp']:.3f} | "
            f"{c['worst_x']:.6g} | {100 * c['correctly_rounded']:.2f} % |"
        )
    lines += [
        "",
        f"Speed on this host ({meta.get('machine')}, load {meta.get('load_avg')}): ns per call over "
        f"{SPEED_POINTS:,} arguments of each function's first range, the core's against the C library's "
        "(glibc; float: its expf, logf, sinf…), each through a function pointer.",
        "",
        "| function | precision | core (ns) | C library (ns) | ratio |",
        "|---|---|---:|---:|---:|",
    ]
    for r in speed_rows:
        lines.append(
            f"| {r['fn']} | {'float' if r['float_build'] else 'double'} | {r['ours_ns']:.1f} | "
            f"{r['libc_ns']:.1f} | {r['ours_ns'] / r['libc_ns']:.2f} |"
        )
    ref_rows = next(r["reference_speed"] for r in results if "speed" in r)
    lines += [
        "",
        "The reference's exp: one ctypes call into libuxm.so (uxemu.libm) against the same operations "
        "transcribed in numpy (`numpy_exp`, equal bit for bit on the arguments timed), µs per call.",
        "",
        "| array size | ctypes (µs) | numpy transcription (µs) |",
        "|---:|---:|---:|",
    ]
    for r in ref_rows:
        lines.append(f"| {r['size']} | {r['ctypes_us']:.1f} | {r['numpy_us']:.1f} |")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "uxm.md").write_text("\n".join(lines) + "\n")
    (folder / "uxm.json").write_text(
        json.dumps({"meta": meta, "cells": cells, "speed": speed_rows, "reference_speed": ref_rows}, indent=1) + "\n"
    )
    worst = max(c["max_ulp"] for c in cells)
    return {"every function within 1 ulp": worst < 1.0}
