"""Cross-validation of the C core (through uxemu.native) against the Python reference.

The double build must agree with the reference to 1e-9 relative on every output (in practice it agrees
bit for bit, because both follow docs/semantics.md operation by operation). The float build is held to a
looser tolerance, justified where it is used (test_native_float.py). Shared helpers live in agree.py.
"""

import numpy as np
import pytest

from uxemu import native


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
