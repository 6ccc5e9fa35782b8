"""Whole filter runs: the C core against the reference on the three systems, η = 8…64, both modes,
both likelihood paths, and bit-identical repeat runs."""

import numpy as np
import pytest

import uxemu as ux
from uxemu import systems, traces
from agree import TWIN_IDS, assert_agree

SYSTEMS = TWIN_IDS


def trace_for(sid, T, seed=7):
    return traces.simulate(systems.get(sid), T, np.random.default_rng(seed + sid))


def compare_runs(nat, sid, eta, mode, lik, T, prior=None):
    model = systems.get(sid)
    tr = trace_for(sid, T)
    ref = ux.run_filter(model, tr, eta, mode, lik)
    got = nat.run_filter(sid, tr.k, tr.u, tr.z, eta, mode, lik)
    what = f"system {sid} η={eta} {mode} {lik}"
    np.testing.assert_array_equal(got.status, ref.status.astype(np.int8), err_msg=what)
    assert_agree(got.mean, ref.mean, what=what + " means")
    assert_agree(got.var, ref.var, what=what + " variances")
    assert_agree(got.log_evidence, ref.log_evidence, what=what + " log evidence")
    assert_agree(got.log_likelihood, ref.log_likelihood, what=what + " log likelihood")
    for k, (p, (x, w)) in enumerate(zip(ref.posteriors, got.posteriors)):
        assert len(x) == len(p.x), f"{what} step {k}: {len(x)} atoms vs {len(p.x)}"
        assert_agree(x, p.x, what=f"{what} step {k} atoms")
        assert_agree(w, p.w, what=f"{what} step {k} weights")
    return got


@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
@pytest.mark.parametrize("eta", [8, 16, 32, 64])
@pytest.mark.parametrize("sid", SYSTEMS)
def test_kernel_filter_matches_reference(nat, sid, eta, mode):
    compare_runs(nat, sid, eta, mode, "kernel", T=25 if eta < 64 else 12)


# The sampler path costs η² hypotheses × (noise points) per step in the reference; the cubic system has
# two noises (η² points per hypothesis), so its large-η refined runs are kept to a few steps.
SAMPLER_STEPS = {
    (3, 32, "refined"): 3,
    (3, 64, "refined"): 2,
    (3, 64, "paper"): 6,
    (3, 32, "mixture"): 3,
    (3, 64, "mixture"): 2,
}


@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
@pytest.mark.parametrize("eta", [8, 16, 32, 64])
@pytest.mark.parametrize("sid", SYSTEMS)
def test_sampler_filter_matches_reference(nat, sid, eta, mode):
    T = SAMPLER_STEPS.get((sid, eta, mode), 20 if eta <= 16 else 8)
    compare_runs(nat, sid, eta, mode, "sampler", T)


def test_custom_parameters_and_prior(nat):
    params = (0.9, 0.5, 0.3, 0.8)
    model = systems.from_param_vector(1, params)
    tr = traces.simulate(model, 20, np.random.default_rng(3))
    prior = ux.laws.Laplace(0.5, 1.0)
    ref = ux.run_filter(model, tr, 16, "refined", "kernel", prior=prior)
    got = nat.run_filter(1, tr.k, tr.u, tr.z, 16, "refined", "kernel", params=params, prior=("laplace", 0.5, 1.0))
    assert_agree(got.mean, ref.mean)
    assert_agree(got.var, ref.var)


def test_fallback_steps_match(nat):
    # An outlier far beyond the GSS observation range: the sampler density is zero for every
    # hypothesis, the filter keeps its prior and says so — on both sides, on the same step.
    tr = trace_for(2, 10)
    tr.z[5] = 1e5
    model = systems.get(2)
    ref = ux.run_filter(model, tr, 8, "refined", "sampler")
    got = nat.run_filter(2, tr.k, tr.u, tr.z, 8, "refined", "sampler")
    assert ref.status[5] == 1 and got.status[5] == 1
    np.testing.assert_array_equal(got.status, ref.status.astype(np.int8))
    assert_agree(got.mean, ref.mean)


@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
@pytest.mark.parametrize("sid", SYSTEMS)
def test_missing_observations_match(nat, sid, mode):
    # Missing samples — the first, a run of three, the last — are predict-only steps on both sides; the
    # filter goes on from the prediction and agrees bit for bit.
    tr = trace_for(sid, 16)
    missing = [0, 5, 6, 7, 15]
    tr.z[missing] = np.nan
    ref = ux.run_filter(systems.get(sid), tr, 8, mode, "kernel")
    got = nat.run_filter(sid, tr.k, tr.u, tr.z, 8, mode, "kernel")
    assert list(np.flatnonzero(ref.status == ux.Status.NO_EVIDENCE)) == missing
    np.testing.assert_array_equal(got.status, ref.status.astype(np.int8))
    for (x, w), p in zip(got.posteriors, ref.posteriors):
        np.testing.assert_array_equal(x, p.x)
        np.testing.assert_array_equal(w, p.w)
    np.testing.assert_array_equal(got.log_evidence, ref.log_evidence)  # 0 on the missing steps
    assert got.log_likelihood == ref.log_likelihood


@pytest.mark.parametrize("lik", ["kernel", "sampler"])
@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
def test_two_runs_are_bit_identical(nat, mode, lik):
    for sid in SYSTEMS:
        tr = trace_for(sid, 15)
        a = nat.run_filter(sid, tr.k, tr.u, tr.z, 16, mode, lik)
        b = nat.run_filter(sid, tr.k, tr.u, tr.z, 16, mode, lik)
        assert a.mean.tobytes() == b.mean.tobytes() and a.var.tobytes() == b.var.tobytes()
        for (xa, wa), (xb, wb) in zip(a.posteriors, b.posteriors):
            assert xa.tobytes() == xb.tobytes() and wa.tobytes() == wb.tobytes()


def test_workspace_fits_the_budget(nat):
    for eta in (8, 16, 32, 64):
        worst = max(
            nat.workspace_bytes(sid, eta, mode, lik)
            for sid in SYSTEMS
            for mode in ("refined", "paper", "mixture")
            for lik in ("kernel", "sampler")
        )
        assert worst <= (64 * 1024 if eta <= 32 else 256 * 1024)
        f = nat.filter(3, eta, "refined", "sampler")
        assert f.workspace_in_use == nat.workspace_bytes(3, eta, "refined", "sampler")


@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
@pytest.mark.parametrize("scale", [1.0, 30.0, 1000.0])
def test_first_update_region_and_refocus_match(nat, scale, mode):
    # A prior 1, 30 and 1,000 times the observation noise (lg): the first update's region, the refocused
    # posterior, its status and evidence, and the density built on the region, bit for bit. Refined mode's
    # kernel form takes the linear update instead (docs/semantics.md, "Linear update"): nothing to refocus.
    sid = systems.spec("lg").id
    refocused = 0
    for seed in range(3):
        model = systems.get("lg", prior=(0.0, scale))
        tr = traces.simulate(model, 4, np.random.default_rng(seed))
        ref = ux.run_filter(model, tr, 8, mode, "kernel")
        got = nat.run_filter(
            sid, tr.k, tr.u, tr.z, 8, mode, "kernel", prior=("gaussian", 0.0, scale), density_evidence=True
        )
        refocused += int(ref.status[0] == ux.Status.REFOCUSED)
        np.testing.assert_array_equal(got.status, ref.status.astype(np.int8))
        np.testing.assert_array_equal(got.mean, ref.mean)
        np.testing.assert_array_equal(got.var, ref.var)
        np.testing.assert_array_equal(got.log_evidence, ref.log_evidence)
        np.testing.assert_array_equal(got.density_log_evidence, ref.density_log_evidence)
        for (x, w), p in zip(got.posteriors, ref.posteriors):
            np.testing.assert_array_equal(x, p.x)
            np.testing.assert_array_equal(w, p.w)
    if scale == 1.0 or mode in ("paper", "refined"):
        assert refocused == 0
    elif scale == 1000.0:
        assert refocused == 3


@pytest.mark.parametrize("gate_outliers", [False, True])
@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
@pytest.mark.parametrize("sid", SYSTEMS)
def test_the_innovation_gate_matches_reference(nat, sid, mode, gate_outliers):
    """Statuses, test ratios and posteriors bit for bit, with a reading far off in the middle (status OUTLIER)
    and a gate tight enough to fail a few ordinary ones too."""
    model = systems.get(sid)
    tr = trace_for(sid, 40)
    tr.z[20] += 50.0 * (np.std(tr.z) + 1.0)
    ref = ux.run_filter(model, tr, 8, mode, gate=2.0, gate_outliers=gate_outliers)
    got = nat.run_filter(sid, tr.k, tr.u, tr.z, 8, mode, gate=2.0, gate_outliers=gate_outliers)
    assert ref.status[20] == ux.Status.OUTLIER
    np.testing.assert_array_equal(got.status, ref.status.astype(np.int8))
    np.testing.assert_array_equal(got.test_ratio, ref.test_ratio)
    np.testing.assert_array_equal(got.nis, ref.nis)
    np.testing.assert_array_equal(got.mean, ref.mean)
    np.testing.assert_array_equal(got.var, ref.var)
    assert got.log_likelihood == ref.log_likelihood


def test_the_gate_must_be_positive(nat):
    f = nat.filter(systems.spec("lg").id, 8)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ux.native.NativeError):
            f.set_gate(bad)
