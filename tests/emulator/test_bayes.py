"""BayesLaplace: conjugate closed forms, evidence with count m, both likelihood paths, the fallback."""

import numpy as np
import pytest

import uxemu as ux
from uxemu import KernelLikelihood, SamplerLikelihood, Status, bayes_laplace, libm


def gauss_kernel(r):
    return KernelLikelihood("gaussian", lambda x: (x, r + 0 * x))


def conjugate(m0, s0, r, zbar, m):
    prec = 1 / s0**2 + m / r**2
    return (m0 / s0**2 + m * zbar / r**2) / prec, 1 / prec


@pytest.mark.parametrize("m0, s0, r, z", [(0.0, 1.0, 1.0, 0.7), (2.0, 3.0, 2.0, -1.0), (-1.0, 0.5, 0.8, 0.2)])
def test_conjugate_gaussian_point_observation(m0, s0, r, z):
    """Posterior of N(m0, s0²) after z ~ N(x, r²): closed form. Tolerances: the 64 prior atoms are the
    only support of the posterior, and a 64-atom TTR of a Gaussian loses ~0.14 % of its variance."""
    res = bayes_laplace(ux.gaussian(m0, s0, 64), gauss_kernel(r), z)
    mean, var = conjugate(m0, s0, r, z, 1)
    assert res.status == Status.OK
    assert res.posterior.mean() == pytest.approx(mean, abs=0.01 * np.sqrt(var))
    assert res.posterior.var() == pytest.approx(var, rel=0.01)


def test_empirical_evidence_with_count_m_is_m_observations_at_the_weighted_mean():
    """For a Gaussian likelihood Π p(z_j|x)^(m ω_j) ∝ N(z̄; x, r²/m): the conjugate update with m."""
    ev = ux.from_weighted_samples([0.5, 1.0, 2.5], [0.2, 0.5, 0.3], eta=4)
    res = bayes_laplace(ux.gaussian(0, 2, 64), gauss_kernel(1.5), ev, m=5)
    mean, var = conjugate(0, 2, 1.5, ev.mean(), 5)
    assert res.posterior.mean() == pytest.approx(mean, abs=0.01 * np.sqrt(var))
    assert res.posterior.var() == pytest.approx(var, rel=0.02)


def test_point_observation_counted_m_times_equals_repeated_updates():
    prior = ux.gaussian(0, 1, 64)
    once = bayes_laplace(prior, gauss_kernel(1.0), 0.4, m=3)
    loglik = once.log_likelihood
    single = bayes_laplace(prior, gauss_kernel(1.0), 0.4, m=1).log_likelihood
    np.testing.assert_allclose(loglik, 3 * single, rtol=1e-12)


def test_kernel_inner_noise_marginalises_exactly():
    """Inner noise u (two atoms) with loc x + u: the likelihood is the two-component mixture."""
    u = ux.from_weighted_samples([-1.0, 1.0], [0.25, 0.75], eta=2)
    lik = KernelLikelihood("gaussian", lambda x, uu: (x + uu, 0.5 + 0 * x), (u,))
    x = np.array([0.0, 0.3])
    got = lik.log_likelihood(x, np.array([0.2]))[:, 0]
    from scipy import stats

    want = np.log(0.25 * stats.norm.pdf(0.2, x - 1, 0.5) + 0.75 * stats.norm.pdf(0.2, x + 1, 0.5))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_laplace_and_uniform_families():
    x = np.array([0.0, 1.0])
    lap = KernelLikelihood("laplace", lambda x: (x, 2.0 + 0 * x)).log_likelihood(x, np.array([0.5]))[:, 0]
    np.testing.assert_allclose(lap, -np.abs(0.5 - x) / 2 - np.log(4.0))
    uni = KernelLikelihood("uniform", lambda x: (x, 1.0 + 0 * x)).log_likelihood(x, np.array([0.4]))[:, 0]
    np.testing.assert_allclose(uni, [0.0, -np.inf])
    with pytest.raises(ValueError, match="family"):
        KernelLikelihood("cauchy", lambda x: (x, x))


def test_sampler_path_equals_lift_then_binned_density():
    """The batched sampler likelihood against the one-hypothesis-at-a-time route through the Value API."""
    noise_m, noise_l = ux.gaussian(0, 0.05, 8), ux.laplace(0, 1, 8)
    h = lambda x, m, l: np.exp(-x) * (1 + m) + np.sqrt(1e-4 + np.exp(-x) * (1 + m)) * l
    lik = SamplerLikelihood(h, (noise_m, noise_l), eta=8)
    xs = np.linspace(-0.5, 1.5, 9)
    z = np.array([0.6, 1.1, 5.0])
    got = lik.log_likelihood(xs, z)
    for i, xi in enumerate(xs):
        y = ux.lift(lambda m, l: h(xi, m, l), noise_m, noise_l, eta=8)
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(got[i], np.log(y.pdf(z)), rtol=1e-12)


def test_sampler_and_kernel_paths_agree_roughly_on_gss():
    gss = ux.systems.get("gss")
    prior = ux.gaussian(3, 4, 32)
    k = bayes_laplace(prior, gss.likelihood(32, "kernel"), 1.2).posterior
    s = bayes_laplace(prior, gss.likelihood(32, "sampler"), 1.2).posterior
    assert abs(k.mean() - s.mean()) < 0.1 * k.std()
    assert s.var() == pytest.approx(k.var(), rel=0.1)


def test_one_point_seen_once_is_weighed_in_the_linear_domain():
    """J = 1, ω = 1, m = 1: w_i·(p_i / max p) with p_i = e^{g(u_i)}/scale_i, then TTR — the rule written out
    (docs/semantics.md), bit for bit, and its evidence log max p + log Σw' − log Σw."""
    from uxemu import _ttr
    from uxemu.value import normalise

    rng = np.random.default_rng(5)
    x = rng.normal(0, 2, 64)
    w = rng.uniform(0.1, 1, 64) / 64
    lik = KernelLikelihood("gaussian", lambda x: (0.0 * x, 0.8 * libm.exp(x / 2)))  # SV's kernel
    res = bayes_laplace((x, w), lik, 0.9, eta=8)
    scale = 0.8 * libm.exp(x / 2)
    p = libm.exp(-0.5 * (0.9 / scale) * (0.9 / scale) - 0.5 * libm.log(2 * np.pi)) / scale
    wp = w * (p / p.max())
    px, pw = _ttr.ttr(x, wp, 3)
    np.testing.assert_array_equal(res.posterior.x, px)
    np.testing.assert_array_equal(res.posterior.w, normalise(pw))
    assert res.log_evidence == (
        libm.log(p.max()) + libm.log(_ttr.sequential_sum(wp)) - libm.log(_ttr.sequential_sum(w))
    )
    # Seen twice (m = 2) the log-domain rule weighs: the same posterior to rounding, other bits.
    twice = bayes_laplace((x, w), lik, 0.9, m=2, eta=8)
    np.testing.assert_allclose(twice.log_likelihood, 2 * np.log(p), rtol=1e-12)


def test_a_point_far_in_the_tails_is_weighed_in_the_log_domain():
    """Every p_i underflows (the observation 50 noise sd beyond the last atom): not a fallback — the log domain still weighs, and
    the posterior moves to the atoms nearest the observation as the exact one would."""
    from uxemu.bayes import LINEAR_MIN

    prior = ux.gaussian(0, 1, 64)
    assert gauss_kernel(0.1).likelihood(prior.x, 8.0).max() < LINEAR_MIN
    res = bayes_laplace(prior, gauss_kernel(0.1), 8.0, eta=8)
    assert res.status == Status.OK
    wp = prior.w * np.exp(res.log_likelihood - res.log_likelihood.max())
    assert res.posterior.mean() == pytest.approx(float(np.sum(wp * prior.x) / np.sum(wp)), rel=1e-12)
    assert res.posterior.mean() > prior.x[-2]


def test_fallback_when_every_likelihood_is_zero():
    prior = ux.gaussian(0, 1, 16)
    lik = KernelLikelihood("uniform", lambda x: (x, 1.0 + 0 * x))
    res = bayes_laplace(prior, lik, 100.0)
    assert res.status == Status.FALLBACK
    np.testing.assert_array_equal(res.posterior.x, prior.x)
    assert np.isfinite(res.posterior.x).all() and np.isfinite(res.posterior.w).all()


def test_nan_likelihood_counts_as_zero_not_as_poison():
    prior = ux.from_weighted_samples([-1.0, 1.0, 2.0], [1, 1, 1], eta=4)
    lik = KernelLikelihood("gaussian", lambda x: (x, np.where(x < 0, np.nan, 1.0)))
    res = bayes_laplace(prior, lik, 1.5)
    assert res.status == Status.OK
    np.testing.assert_allclose(res.posterior.x, [1.0, 2.0])


def test_bad_evidence_is_rejected_before_any_work():
    prior = ux.gaussian(0, 1, 16)
    for bad in (np.nan, np.inf, (np.array([1.0]), np.array([np.nan])), (np.array([1.0, 2.0]), np.array([1.0]))):
        with pytest.raises(ValueError):
            bayes_laplace(prior, gauss_kernel(1), bad)
    with pytest.raises(ValueError, match="positive integer"):
        bayes_laplace(prior, gauss_kernel(1), 0.0, m=0)
    with pytest.raises(ValueError, match="eta"):
        bayes_laplace((prior.x, prior.w), gauss_kernel(1), 0.0)


def test_prior_given_as_many_atoms_is_reduced_to_eta():
    rng = np.random.default_rng(0)
    x = np.sort(rng.normal(0, 1, 4096))
    res = bayes_laplace((x, np.full(x.size, 1 / x.size)), gauss_kernel(1.0), 0.5, eta=16)
    assert len(res.posterior) == 16
    mean, var = conjugate(0, 1, 1, 0.5, 1)
    assert res.posterior.mean() == pytest.approx(mean, abs=0.05)
