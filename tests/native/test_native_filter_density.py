"""ux_filter_logpdf against the reference's filter density (docs/semantics.md, "Filter density"), and the C
models' additive-noise declarations checked on random points."""

import ctypes as C

import numpy as np
import pytest

import uxemu as ux
from uxemu import systems
from uxemu.filter import BayesLaplaceFilter
from uxemu.traces import simulate
from agree import TWIN_IDS, assert_agree


@pytest.mark.parametrize("lik", ["kernel", "sampler"])
@pytest.mark.parametrize("eta", [4, 8, 16])
@pytest.mark.parametrize("sid", TWIN_IDS)
def test_filter_density_matches_reference(nat, sid, eta, lik):
    model = systems.get(sid)
    tr = simulate(model, 10 if lik == "kernel" or eta < 16 else 4, np.random.default_rng(5 + sid))
    ref = BayesLaplaceFilter(model, eta, "refined", lik)
    c = nat.filter(sid, eta, "refined", lik)
    assert c.density_form() == ref.density.form == "prior"
    for i in range(len(tr.z)):
        if i > 0:
            c.predict(int(tr.k[i]), float(tr.u[i]))
        c.update([float(tr.z[i])])
        ref.step(int(tr.k[i]), float(tr.z[i]), float(tr.u[i]), predict=i > 0)
        assert c.density_form() == ref.density.form == ("prior" if i == 0 else "mixture")
        ts = tr.x[i] + np.linspace(-3.0, 3.0, 13)
        want, got = ref.logpdf(ts), c.logpdf(ts)
        fin = np.isfinite(want)
        np.testing.assert_array_equal(np.isfinite(got), fin)
        assert_agree(got[fin], want[fin], what=f"system {sid} η={eta} {lik} step {i} log density")
        assert_agree(c.pdf(ts), ref.pdf(ts), what=f"system {sid} η={eta} {lik} step {i} density")


def test_update_without_predict_reads_bins(nat):
    model = systems.get(1)
    c = nat.filter(1, 8)
    c.update([0.3])
    c.update([0.1])
    assert c.density_form() == "bins"
    v = c.posterior()
    assert c.pdf(float(v.x[3])) == pytest.approx(nat.pdf(v, float(v.x[3])), rel=1e-14)
    ref = BayesLaplaceFilter(model, 8)
    ref.step(0, 0.3, predict=False)
    ref.step(0, 0.1, predict=False)
    assert ref.density.form == "bins"


@pytest.mark.parametrize("sid", TWIN_IDS)
def test_c_additive_noise_declaration_holds(nat, sid):
    model = nat.model(sid)
    code = model.contents.code.contents
    assert code.additive_noise == 1
    p = [model.contents.defaults[i] for i in range(model.contents.n_params)]
    preal = (nat.real * len(p))(*p)
    fn = C.CFUNCTYPE(nat.real, C.POINTER(nat.real), C.c_void_p)(code.transition)
    rng = np.random.default_rng(3)
    for k in (1, 5):
        ctx = nat.ModelCtx()
        nat.lib.ux_model_context(model, C.cast(preal, C.POINTER(nat.real)), k, 0.0, C.byref(ctx))
        for x, w in zip(rng.normal(0, 3, 200), rng.normal(0, 2, 200)):
            f0 = fn((nat.real * 2)(x, 0.0), C.cast(C.pointer(ctx), C.c_void_p))
            fw = fn((nat.real * 2)(x, w), C.cast(C.pointer(ctx), C.c_void_p))
            assert fw == f0 + w  # bit for bit: the predict evaluates it that way


@pytest.mark.parametrize("sid", TWIN_IDS)
def test_density_after_a_step_without_observation_matches_reference(nat, sid):
    # A missing first sample leaves the prior law's density; a missing later one the predictive mixture,
    # both without a likelihood factor. C and the reference agree on the form and the values.
    model = systems.get(sid)
    tr = simulate(model, 6, np.random.default_rng(11 + sid))
    tr.z[[0, 3]] = np.nan
    ref = BayesLaplaceFilter(model, 8)
    c = nat.filter(sid, 8)
    for i in range(len(tr.z)):
        if i > 0:
            c.predict(int(tr.k[i]), float(tr.u[i]))
        observed = not np.isnan(tr.z[i])
        c.update([float(tr.z[i])] if observed else None)
        ref.step(int(tr.k[i]), float(tr.z[i]) if observed else None, float(tr.u[i]), predict=i > 0)
        assert c.density_form() == ref.density.form == ("prior" if i == 0 else "mixture")
        assert (ref.density.likelihood is None) == (not observed)
        ts = tr.x[i] + np.linspace(-3.0, 3.0, 13)
        want, got = ref.logpdf(ts), c.logpdf(ts)
        fin = np.isfinite(want)
        np.testing.assert_array_equal(np.isfinite(got), fin)
        assert_agree(got[fin], want[fin], what=f"system {sid} step {i} log density")


@pytest.mark.parametrize("sid", TWIN_IDS)
def test_density_evidence_matches_reference(nat, sid):
    # The density's quadrature of each update's integral, bit for bit; the update's own evidence (0) at a
    # step without observation.
    model = systems.get(sid)
    tr = simulate(model, 12, np.random.default_rng(21 + sid))
    tr.z[[0, 6]] = np.nan
    c = nat.run_filter(sid, tr.k, tr.u, tr.z, 8, atoms=False, density_evidence=True)
    ref = BayesLaplaceFilter(model, 8).run(tr)
    np.testing.assert_array_equal(c.density_log_evidence, ref.density_log_evidence)
    assert c.density_log_evidence[0] == c.density_log_evidence[6] == 0.0
    assert np.all(np.isfinite(c.density_log_evidence)) and not np.array_equal(c.density_log_evidence, c.log_evidence)


@pytest.mark.parametrize("mode", ["refined", "mixture"])
def test_refocused_first_density_matches_reference(nat, mode):
    # A prior 1,000 times the observation noise: the density of the refocused first posterior is read on
    # its region on both sides (a quadrature on the prior's ±10σ would miss a likelihood of width 1). Refined
    # mode takes the linear update (docs/semantics.md, "Linear update"): status OK, the density as mixture's.
    model = systems.get("lg", prior=(0.0, 1000.0))
    tr = simulate(model, 1, np.random.default_rng(8))
    ref = BayesLaplaceFilter(model, 8, mode)
    c = nat.filter(systems.spec("lg").id, 8, mode, prior=("gaussian", 0.0, 1000.0))
    assert c.update([float(tr.z[0])]) == ref.step(0, float(tr.z[0]), predict=False) == (3 if mode == "mixture" else 0)
    ts = tr.x[0] + np.linspace(-3.0, 3.0, 13)
    np.testing.assert_array_equal(c.logpdf(ts), ref.logpdf(ts))
    # It integrates to 1 (trapezoid on a fine grid over ±8 around the posterior).
    grid = np.linspace(tr.z[0] - 8.0, tr.z[0] + 8.0, 4001)
    assert abs(np.trapezoid(c.pdf(grid), grid) - 1.0) < 1e-4


@pytest.mark.parametrize("mode", ["refined", "mixture"])
@pytest.mark.parametrize("sid", TWIN_IDS)
def test_an_unresolved_quadrature_falls_back_as_the_reference_does(nat, sid, mode):
    # A process noise of 1e-6 (tests/emulator/test_filter_density.py): the C core's every step's evidence,
    # update and density, bit for bit the reference's — the steps whose nodes do not resolve the numerator
    # among them (ux/filter_density.c resolves, FilterDensity.resolves).
    spec = systems.spec(sid)
    noise = next(p.name for p in spec.params if p.name in ("q", "sigma_eta", "sigma_v", "sigma"))
    params = spec.param_vector(**{noise: 1e-6})
    tr = ux.traces.simulate_many(systems.get(sid), 1, 30, 2031)[0]
    ref = ux.run_filter(systems.from_param_vector(sid, params), tr, 8, mode)
    got = nat.run_filter(sid, tr.k, tr.u, tr.z, 8, mode, params=params, atoms=False, density_evidence=True)
    np.testing.assert_array_equal(got.log_evidence, ref.log_evidence)
    np.testing.assert_array_equal(got.density_log_evidence, ref.density_log_evidence)


def test_a_posterior_collapsed_to_rounding_keeps_the_filters_log_likelihood(nat):
    # cubic in mixture mode at σ_v → 0: by step ~290 of this trace the posterior's spread is a few ulps of its
    # mean and the nodes stand no further apart than rounding; its log L rose by 19.6 nats at σ_v = 1e-16 and
    # 29.2 at 1e-20 (a +1,700 at 1e-144), where now those steps keep the update's own (flat within 0.01).
    sid = systems.spec("cubic").id
    tr = ux.traces.simulate_many(systems.get("cubic"), 1, 500, 2031)[0]

    def log_l(sigma_v):
        params = systems.spec("cubic").param_vector(sigma_v=sigma_v)
        return nat.run_filter(sid, tr.k, tr.u, tr.z, 16, "mixture", params=params, atoms=False).log_likelihood

    flat = log_l(1e-12)
    for sigma_v in (1e-15, 1e-16, 1e-20, 1e-144):
        assert abs(log_l(sigma_v) - flat) < 0.01, sigma_v
