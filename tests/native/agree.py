"""Agreement helpers and hypothesis settings shared by the native cross-validation tests."""

import numpy as np
from hypothesis import HealthCheck, settings

from uxemu import systems

REL = 1e-9

# Applied per test (not as a global profile, which would also change other suites' settings):
# hundreds of cases per operation, reproducible from run to run.
NATIVE = settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


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
    assert not bad.any(), (
        f"{what}: {int(bad.sum())} of {e.size} differ beyond {rel:g}; first at "
        f"{int(np.flatnonzero(bad)[0])}: {a[bad][0]!r} vs {e[bad][0]!r}"
    )


def assert_same_value(nv, rv, rel=REL, what="value"):
    """A native value and a reference value hold the same atoms."""
    assert len(nv.x) == len(rv.x), f"{what}: {len(nv.x)} atoms vs {len(rv.x)}"
    assert nv.eta == rv.eta, f"{what}: eta {nv.eta} vs {rv.eta}"
    assert_agree(nv.x, rv.x, rel, what + " positions")
    assert_agree(nv.w, rv.w, rel, what + " weights")


# Every system of the table that has a Python twin: the cross checks run over all of them.
TWIN_IDS = [systems.spec(name).id for name in systems.with_twin()]
