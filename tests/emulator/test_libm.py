"""The reference's exp, expm1, log, log1p, sin and cos (uxemu.libm) are the C core's own (ux/uxm.h): within
one ulp of the exact value (mpmath), IEEE on the special arguments, and the same bits whatever numpy's CPU
dispatch — the premise of every test that compares the C core with the reference exactly."""

import ctypes
import math

import mpmath
import numpy as np
import pytest

from uxemu import libm
from uxemu.libm import FUNCTIONS
from uxemu._library import uxm_library_path

# Arguments per function: uniform on a range, or 10^uniform ("log10"); the huge trigonometric arguments
# exercise the exact reduction by π/2.
RANGES = {
    "exp": [("uniform", -745.0, 709.7), ("uniform", -1.0, 1.0)],
    "expm1": [("uniform", -40.0, 40.0), ("uniform", -0.4, 0.4)],
    "log": [("log10", -320.0, 308.0), ("uniform", 0.5, 2.0)],
    "log1p": [("uniform", -1.0, 4.0), ("log10", -30.0, 300.0)],
    "sin": [("uniform", -10.0, 10.0), ("log10", 0.0, 308.0)],
    "cos": [("uniform", -10.0, 10.0), ("log10", 0.0, 308.0)],
}


def arguments(name, n=400, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for kind, lo, hi in RANGES[name]:
        u = rng.uniform(lo, hi, n)
        out.append(10.0**u if kind == "log10" else u)
    return np.concatenate(out)


def exact_value(name: str, x):
    """The function `name` at x by mpmath, which names exp, expm1, log, log1p, sin and cos as the core does."""
    return getattr(mpmath, name)(x)


def ulp_error(got: float, exact) -> float:
    """|got − exact| in units of the last place of the exact value's double (subnormals: of 2^-1074)."""
    ulp = math.ulp(float(exact)) if float(exact) != 0.0 else 2.0**-1074
    return float(abs(mpmath.mpf(got) - exact) / ulp)


# Floats of [π/4, 2^16), the float sin/cos reduction's medium range, that lie nearest a multiple of π/2 (from
# a search of every float of the range; and π/2 itself): with π/2 in one piece fewer (uxm_trig_table.h) cosf's error here
# is 3.5 ulp, so they hold the pieces' count to what the range needs.
NEAR_PIO2_MULTIPLES = [float.fromhex(h) for h in ("0x1.9a48dep15", "0x1.17cc5p15", "0x1.92ebf4p14", "0x1.921fb6p0")]


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_float_medium_reduction_within_one_ulp(name):
    fn = getattr(ctypes.CDLL(str(uxm_library_path())), f"uxm_{name}f")
    fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
    rng = np.random.default_rng(16)
    xs = np.concatenate([NEAR_PIO2_MULTIPLES, rng.uniform(math.pi / 4, 2.0**16, 2000)]).astype(np.float32)
    for x in np.concatenate([xs, -xs]):
        with mpmath.workprec(120):
            exact = exact_value(name, mpmath.mpf(float(x)))
        ulp = float(np.spacing(np.float32(abs(float(exact)))))
        assert float(abs(mpmath.mpf(float(fn(float(x)))) - exact)) < ulp, f"{name}f({float(x).hex()})"


@pytest.mark.parametrize("name", FUNCTIONS)
def test_within_one_ulp_of_the_exact_value(name):
    xs = arguments(name)
    got = getattr(libm, name)(xs)
    with mpmath.workprec(200):
        errors = [ulp_error(g, exact_value(name, mpmath.mpf(float(x)))) for x, g in zip(xs, got)]
    assert max(errors) < 1.0, f"{name}: {max(errors):.3f} ulp at {xs[int(np.argmax(errors))]!r}"


def test_float_versions_within_one_ulp():
    lib = ctypes.CDLL(str(uxm_library_path()))
    for name in FUNCTIONS:
        fn = getattr(lib, f"uxm_{name}f")
        fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
        xs = np.clip(arguments(name, 150), -1e30, 1e30).astype(np.float32)
        for x in xs:
            with mpmath.workprec(100):
                exact = exact_value(name, mpmath.mpf(float(x)))
            if not 2.0**-126 <= abs(float(exact)) <= 3e38:  # normal float results only
                continue
            ulp = float(np.spacing(np.float32(abs(float(exact)))))
            assert float(abs(mpmath.mpf(float(fn(float(x)))) - exact)) < ulp, f"{name}f({x!r})"


@pytest.mark.parametrize(
    "name, x, want",
    [
        ("exp", math.inf, math.inf),
        ("exp", -math.inf, 0.0),
        ("exp", 709.8, math.inf),
        ("exp", -745.2, 0.0),
        ("exp", -745.0, 5e-324),
        ("expm1", -math.inf, -1.0),
        ("expm1", -0.0, -0.0),
        ("log", 0.0, -math.inf),
        ("log", -0.0, -math.inf),
        ("log", math.inf, math.inf),
        ("log", 1.0, 0.0),
        ("log1p", -1.0, -math.inf),
        ("log1p", -0.0, -0.0),
        ("sin", -0.0, -0.0),
        ("cos", -0.0, 1.0),
        ("sin", 5e-324, 5e-324),
    ],
)
def test_special_arguments(name, x, want):
    got = getattr(libm, name)(x)
    assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


@pytest.mark.parametrize(
    "name, x",
    [("exp", math.nan), ("log", -1.0), ("log1p", -2.0), ("sin", math.inf), ("cos", -math.inf), ("expm1", math.nan)],
)
def test_nan_results(name, x):
    assert math.isnan(getattr(libm, name)(x))


def test_arrays_and_scalars_give_the_same_bits():
    xs = arguments("exp", 200, seed=3)
    for name in FUNCTIONS:
        arr = getattr(libm, name)(xs.reshape(2, -1))
        assert arr.shape == (2, xs.size // 2)
        one = np.array([getattr(libm, name)(float(x)) for x in xs])
        assert np.array_equal(arr.ravel(), one, equal_nan=True), name


def test_numpy_differs_where_the_reference_does_not():
    """numpy's own exp (its SIMD loops on this CPU, or the C library's) is not what the core computes: the
    reference must not use it. It differs from the core's in the last bit on a share of arguments."""
    x = np.random.default_rng(0).normal(size=20_000) * 40.0
    assert np.any(np.exp(x) != libm.exp(x))
