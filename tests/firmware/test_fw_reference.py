"""Whole traces of the three systems streamed through the firmware must equal the host's computation of
them bit for bit, step by step (what `uxhost validate --exact` checks of a dump): the core computes its
elementary functions itself (ux/uxm.h), so every target rounds every operation alike.

Double build (mps2-an500): every atom and weight equal to the Python reference's (uxemu, which computes
the same operations in the same order); the mean and variance, which the reference sums with numpy, to
1e-9 relative — the contract of docs/contract.md.

Float build (every other board): every atom, weight, mean and variance equal to the host float build's
(libux_float.so, through uxemu.native) over the whole trace.
"""

import numpy as np
import pytest
from fwutil import CUBIC, GSS, MODELS, SV, configure_args, need_eta, trace

from uxemu import filter as uxfilter
from uxemu import native
from uxhost import protocol as p

pytestmark = pytest.mark.qemu


MODE = {p.Mode.REFINED: "refined", p.Mode.PAPER: "paper"}
LIK = {p.Likelihood.KERNEL: "kernel", p.Likelihood.SAMPLER: "sampler"}
T = 25

CASES = [
    # system, η, mode, likelihood
    (SV, 8, p.Mode.REFINED, p.Likelihood.KERNEL),
    (SV, 32, p.Mode.PAPER, p.Likelihood.KERNEL),
    (SV, 8, p.Mode.REFINED, p.Likelihood.SAMPLER),
    (GSS, 16, p.Mode.REFINED, p.Likelihood.KERNEL),
    (GSS, 64, p.Mode.REFINED, p.Likelihood.KERNEL),
    (GSS, 8, p.Mode.PAPER, p.Likelihood.SAMPLER),
    (CUBIC, 8, p.Mode.REFINED, p.Likelihood.KERNEL),
    (CUBIC, 32, p.Mode.REFINED, p.Likelihood.KERNEL),
    (CUBIC, 4, p.Mode.REFINED, p.Likelihood.SAMPLER),
]


@pytest.mark.parametrize("system, eta, mode, likelihood", CASES, ids=lambda v: str(int(v)))
def test_trace_matches_reference(dev, board, system, eta, mode, likelihood):
    need_eta(dev, eta)
    tr = trace(system, T, seed=1000 + 10 * int(system) + eta)
    double = dev.hello().real_bytes == 8
    args = configure_args(system, eta, mode, likelihood)
    if double:
        ref = uxfilter.BayesLaplaceFilter(MODELS[system], eta, MODE[mode], LIK[likelihood])
    else:
        ((_, prior_a, prior_b),) = args["priors"]
        ref = native.load(float_build=True).filter(
            int(system), eta, MODE[mode], LIK[likelihood], list(args["params"]), ("gaussian", prior_a, prior_b)
        )
    dev.configure(**args)
    for i in range(T):
        k, z, u = int(tr.k[i]), float(tr.z[i]), float(tr.u[i])
        post = dev.step(k, i > 0, u, z)
        where = f"{board} system {int(system)} η={eta} step {i}"
        assert post.k == k and post.dim == 1
        if double:
            status = ref.step(k, z, u, predict=i > 0)
            want, mean, var = ref.posterior, ref.posterior.mean(), ref.variance()
        else:
            if i > 0:
                ref.predict(k, u)
            status = ref.update([z])
            want, mean, var = ref.posterior(), ref.mean(), ref.var()
        assert post.status == status, where
        assert post.count == len(want.x), where
        assert np.array_equal(np.array(post.x), np.asarray(want.x, dtype=float)), where
        assert np.array_equal(np.array(post.w), np.asarray(want.w, dtype=float)), where
        if double:
            scale = np.max(np.abs(want.x))
            np.testing.assert_allclose(post.mean[0], mean, rtol=1e-9, atol=1e-9 * scale, err_msg=where)
            np.testing.assert_allclose(post.cov[0], var, rtol=1e-9, atol=1e-9 * scale**2, err_msg=where)
        else:
            assert (post.mean[0], post.cov[0]) == (mean, var), where
