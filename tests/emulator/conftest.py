import math

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ux", deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ux")


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def weighed(monkeypatch):
    """Refined mode weighing its atoms on every update: the linear update (docs/semantics.md) off, so that a
    linear-Gaussian model, whose exact answer is the Kalman filter's, can test the weighed path."""
    import uxemu.filter

    monkeypatch.setattr(uxemu.filter, "LINEAR_RESIDUAL", -math.inf)
