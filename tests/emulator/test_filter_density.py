"""The filter's posterior density (docs/semantics.md, "Filter density"): the predictive mixture for models
that declare additive Gaussian process noise, the TTR bins otherwise."""

import numpy as np
import pytest
from scipy import stats

import uxemu as ux
from uxemu import systems
from uxemu.filter import BayesLaplaceFilter
from uxemu.laws import Normal
from uxemu.model import Kernel, Sampler, StateSpaceModel
from uxemu.traces import simulate


@pytest.mark.parametrize("name", systems.with_twin())
def test_declared_additive_noise_holds(name):
    model = systems.get(name)
    assert model.additive_noise
    rng = np.random.default_rng(11)
    x = rng.normal(0.0, 3.0, 500)
    w = rng.normal(0.0, 2.0, 500)
    for k in (1, 2, 7):
        f0 = model.transition(x, np.zeros_like(x), k, 0.0)
        fw = model.transition(x, w, k, 0.0)
        assert np.all(np.abs((fw - f0) - w) <= 1e-12 * (1.0 + np.abs(f0) + np.abs(w)))


def _linear_gaussian(a=0.9, q=0.5, r=0.4, additive=True):
    return StateSpaceModel(
        "lg",
        lambda x, w, k, u: a * x + w,
        Normal(0.0, q),
        Normal(0.0, 1.0),
        Sampler(lambda x, v: x + v, (Normal(0.0, r),)),
        Kernel("gaussian", lambda x: (x, r + 0.0 * x)),
        additive_noise=additive,
    )


def _kalman(z, a=0.9, q=0.5, r=0.4):
    m, P, out = 0.0, 1.0, []
    for i, zi in enumerate(z):
        if i > 0:
            m, P = a * m, a * a * P + q * q
        K = P / (P + r * r)
        m, P = m + K * (zi - m), (1 - K) * P
        out.append((m, P))
    return out


@pytest.mark.parametrize("eta", [16, 32])
def test_linear_gaussian_density_is_near_the_exact_posterior(eta):
    """x' = 0.9x + w, z = x + v, Gaussian prior: the Kalman posterior is exact. The mixture density is
    within 2% of the exact peak everywhere (the bins are not: checked too, so the test can fail)."""
    model = _linear_gaussian()
    tr = simulate(model, 15, np.random.default_rng(4))
    run = ux.run_filter(model, tr, eta)
    exact = _kalman(tr.z)
    for i in range(1, 15):
        m, P = exact[i]
        t = m + np.sqrt(P) * np.linspace(-4, 4, 161)
        want = stats.norm.pdf(t, m, np.sqrt(P))
        got = run.densities[i].pdf(t)
        assert run.densities[i].form == "mixture"
        assert np.max(np.abs(got - want)) < 0.02 * want.max(), i
    bins = run.posteriors[5].pdf(t)
    assert np.max(np.abs(bins - stats.norm.pdf(t, *[exact[5][0], np.sqrt(exact[5][1])]))) > 0.03 * want.max()


@pytest.mark.parametrize("name", systems.with_twin())
def test_density_integrates_to_one(name):
    """Z is the numerator's integral on DENSITY_INTERVALS trapezoid intervals: against a rule 1,500 times
    finer the density integrates to 1 within 3e-5 at every step (measured: ≤ 1.3e-5, cubic; 6.2e-6 before the smooth
    filter's kernel), gss included (whose likelihood, much
    sharper than its predictive, made the update's η²-point evidence off by up to 5.9 nats at η = 16)."""
    model = systems.get(name)
    tr = simulate(model, 12, np.random.default_rng(9))
    run = ux.run_filter(model, tr, 16)
    for i in range(12):
        d = run.densities[i]
        lo, hi = d.support()
        t = np.linspace(lo, hi, 200001)
        assert np.trapezoid(d.pdf(t), t) == pytest.approx(1.0, abs=3e-5), i


def test_normaliser_follows_the_likelihood_not_the_updates_points():
    """On gss the update's evidence (its η² points) and the density's normaliser differ; the density uses
    the normaliser, so it integrates to 1 where a density divided by the evidence would not."""
    model = systems.get("gss")
    tr = simulate(model, 30, np.random.default_rng(3))
    run = ux.run_filter(model, tr, 8, "paper")
    gaps = [abs(d.log_norm - d.log_evidence) for d in run.densities if d.likelihood is not None]
    assert max(gaps) > 0.1  # the evidence alone would leave densities off by more than 10 %
    for d in run.densities[1:]:
        lo, hi = d.support()
        t = np.linspace(lo, hi, 200001)
        assert np.trapezoid(d.pdf(t), t) == pytest.approx(1.0, abs=1e-5)


def test_forms_and_fallback_to_bins():
    model = _linear_gaussian(additive=False)
    tr = simulate(model, 4, np.random.default_rng(1))
    f = BayesLaplaceFilter(model, 8)
    assert f.density.form == "prior"  # before any update: the prior law itself
    assert f.pdf(0.3) == pytest.approx(stats.norm.pdf(0.3), rel=1e-12)
    f.step(0, tr.z[0], predict=False)
    assert f.density.form == "prior"
    f.step(1, tr.z[1])
    assert f.density.form == "bins"  # no additive declaration
    assert f.pdf(f.posterior.mean()) == f.posterior.pdf(f.posterior.mean())
    f.step(2, tr.z[2], predict=False)  # an update without a predict after another update
    assert f.density.form == "bins"
    g = BayesLaplaceFilter(_linear_gaussian(), 8, prior=ux.laws.StudentT(3.0, 0.0, 1.0))
    g.step(0, tr.z[0], predict=False)
    assert g.density.form == "bins"  # a prior law without a closed-form density in the core
    g.step(1, tr.z[1])
    assert g.density.form == "mixture"


def test_fallback_drops_the_likelihood_factor():
    model = StateSpaceModel(
        "lgu",
        lambda x, w, k, u: 0.9 * x + w,
        Normal(0.0, 0.5),
        Normal(0.0, 1.0),
        Sampler(lambda x, v: x + 0.1 * v, (ux.laws.Uniform(-0.5, 0.5),)),
        Kernel("uniform", lambda x: (x, 0.1 + 0.0 * x)),
        additive_noise=True,
    )
    f = BayesLaplaceFilter(model, 8)
    f.step(0, 0.0, predict=False)
    st = f.step(1, 100.0)  # outside every hypothesis's uniform window: every likelihood is zero
    assert st == ux.Status.FALLBACK and f.density.likelihood is None
    c, w, s = f.density.components
    t = 0.5
    assert f.pdf(t) == pytest.approx(np.sum(w * stats.norm.pdf(t, c, s)), rel=1e-12)


def test_nll_run_uses_the_filter_density():
    from uxemu import metrics

    model = systems.get("sv")
    tr = simulate(model, 10, np.random.default_rng(2))
    run = ux.run_filter(model, tr, 8)
    got = metrics.nll_run(run, tr.x)
    assert got.mean == pytest.approx(-np.mean([run.densities[i].logpdf(tr.x[i]) for i in range(10)]), rel=1e-12)


def test_log_z_integrates_over_the_region_narrowed_onto_the_numerator():
    """gss far from 0 (z = x²/20 pins x to a narrow peak): in every mode (here refined) log Z is the trapezoid
    rule on the support narrowed onto the numerator (`narrowed`; it narrows at 4 of these steps).
    Against a rule 1,500 times finer on the full support it is within 1e-6 at every step of this trace
    (measured 3.3e-8). (Not every trace's steps are within 1e-6: seed 2030 has had one at 1.5e-6.)"""
    from uxemu.filter import narrowed

    model = systems.get("gss")
    tr = ux.traces.simulate_many(model, 1, 40, 2029)[0]
    run = ux.run_filter(model, tr, 16)
    errors = []
    for d in run.densities:
        if d.form == "bins" or d.likelihood is None:
            continue
        lo, hi = d.support()
        t = np.linspace(lo, hi, 200001)
        u = d.log_numerator(t)
        fine = u.max() + np.log(np.trapezoid(np.exp(u - u.max()), t))
        errors.append(abs(d.log_norm - fine))
        assert d.log_norm == d.quadrature(*narrowed(d)).log_z
    assert len(errors) == 40
    assert max(errors) < 1e-6


@pytest.mark.parametrize("name, param", [("lg", "q"), ("sv", "sigma_eta"), ("cubic", "sigma_v")])
def test_a_quadrature_its_nodes_do_not_resolve_gives_the_updates_evidence(name, param):
    """A process noise of 1e-6, far below the predictive's spread: paper mode's components (scale σ, as
    refined mode's were before smooth refined widened them by their atoms' bin spreads) are spikes between the 129 nodes, which the trapezoid does not integrate (it summed to −5,342.74 against the
    update's −1,257.89 on a 500-step lg trace; 40 nats off after a narrowing that zoomed onto one spike). Such
    a step's log Z is the update's evidence (`FilterDensity.resolves`); the steps whose nodes do resolve keep
    their own (within 0.05 nats over the trace of the update's, as at the systems' defaults)."""
    spec = systems.spec(name)
    model = systems.from_param_vector(spec.id, spec.param_vector(**{param: 1e-6}))
    tr = ux.traces.simulate_many(systems.get(name), 1, 60, 2031)[0]
    run = ux.run_filter(model, tr, 8, "paper")
    density = run.density_log_evidence
    fell_back = density == run.log_evidence
    assert fell_back[1:].sum() >= 30  # most predicted steps (the first update reads the prior law)
    assert abs(density.sum() - run.log_evidence.sum()) < 0.05
    spiky = next(d for d, f in zip(run.densities[1:], fell_back[1:]) if f)
    assert spiky.form == "mixture" and spiky.quadrature() is None
