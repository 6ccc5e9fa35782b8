"""The reference's elementwise exp and log are the C library's, bit for bit: the premise of every test that
compares the C core with the reference exactly (docs/semantics.md, "Summation order" and "Filter")."""
import math

import numpy as np


def test_numpy_exp_and_log_are_libm_bit_for_bit():
    x = np.random.default_rng(0).normal(size=20_000) * 40.0
    exp_off = int(np.sum(np.exp(x) != np.array([math.exp(v) for v in x])))
    log_off = int(np.sum(np.log(np.abs(x)) != np.array([math.log(abs(v)) for v in x])))
    assert exp_off == log_off == 0, (
        f"numpy's exp differs from libm's on {exp_off} and its log on {log_off} of 20,000 arguments: this CPU's "
        "numpy dispatches them to its AVX-512 loops. Run the tests through scripts/run-pytest.sh (make test), "
        "which sets NPY_DISABLE_CPU_FEATURES='X86_V4 AVX512_ICL AVX512_SPR' before numpy is imported.")
