"""Tests of the benchmark code itself (uxbench), on tiny sizes.

The C baselines live in build/native/libuxbench.so (`make bench-lib`); tests that need it take the
`benchlib` fixture, which skips with the command to run when the library is not built, as
tests/native does for libux.so.
"""

import pytest


@pytest.fixture(scope="session")
def benchlib():
    from uxbench import pf_native

    if not pf_native.available():
        pytest.skip(f"{pf_native.library_path()} is not built (run `make bench-lib`)")
    return pf_native.load()
