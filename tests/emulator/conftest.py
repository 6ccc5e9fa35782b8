import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ux", deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ux")


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)
