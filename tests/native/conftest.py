"""Cross-validation of the C core (through uxemu.native) against the Python reference.

The double build must agree with the reference to 1e-9 relative on every output (in practice it agrees
bit for bit, because both follow docs/semantics.md operation by operation). The float build is held to a
looser tolerance, justified where it is used (test_native_float.py).
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from uxemu import native

settings.register_profile("ux-native", deadline=None, max_examples=200, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ux-native")

REL = 1e-9


def _load(float_build: bool):
    if not native.available(float_build):
        pytest.skip(f"native library {native.library_path(float_build)} is not built (run `make native`)")
    return native.load(float_build)


@pytest.fixture(scope="session")
def nat():
    return _load(False)


@pytest.fixture(scope="session")
def nat_f():
    return _load(True)


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


def assert_agree(actual, expected, rel=REL, what=""):
    """Elementwise |a − e| ≤ rel · max(|e|, scale), scale = the largest |e| in the set (so atoms near zero
    are compared at the precision of the set they belong to)."""
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != {e.shape}"
    if e.size == 0:
        return
    scale = max(float(np.max(np.abs(e))), 1e-300)
    bad = np.abs(a - e) > rel * np.maximum(np.abs(e), scale)
    assert not bad.any(), (f"{what}: {int(bad.sum())} of {e.size} differ beyond {rel:g}; first at "
                           f"{int(np.flatnonzero(bad)[0])}: {a[bad][0]!r} vs {e[bad][0]!r}")


def assert_same_value(nv, rv, rel=REL, what="value"):
    """A native value and a reference value hold the same atoms."""
    assert len(nv.x) == len(rv.x), f"{what}: {len(nv.x)} atoms vs {len(rv.x)}"
    assert nv.eta == rv.eta, f"{what}: eta {nv.eta} vs {rv.eta}"
    assert_agree(nv.x, rv.x, rel, what + " positions")
    assert_agree(nv.w, rv.w, rel, what + " weights")
