"""BayesLaplace of the C core against the reference: both likelihood paths, every system, empirical
evidence with a count m, and the fallback."""

import numpy as np
import pytest

import uxemu as ux
from uxemu import systems
from uxemu.bayes import Status
from agree import TWIN_IDS, assert_same_value

CASES = 60  # per system and path: 3 systems × 2 paths × 60 = 360 random cases


def random_prior(rng, sid, eta):
    """A prior like the filter's: refined (η² raw atoms) or paper (η atoms), around the system's range."""
    centre, spread = {1: (0.0, 2.0), 2: (0.0, 8.0), 3: (0.0, 0.3), 4: (0.0, 3.0)}[sid]
    M = eta * eta if rng.uniform() < 0.5 else eta
    x = np.sort(rng.normal(centre, spread, M))
    w = rng.uniform(0.01, 1, M) / M
    return x, w


def random_evidence(rng, sid):
    J = int(rng.integers(1, 5))
    base = {1: 0.0, 2: 5.0, 3: 1.0, 4: 0.0}[sid]
    scale = {1: 2.0, 2: 10.0, 3: 0.3, 4: 3.0}[sid]
    z = base + scale * rng.normal(size=J)
    om = None if J == 1 and rng.uniform() < 0.5 else rng.uniform(0.1, 1, J)
    m = int(rng.integers(1, 6))
    return z, om, m


@pytest.mark.parametrize("path", ["kernel", "sampler"])
@pytest.mark.parametrize("sid", TWIN_IDS)
def test_bayes_laplace_random_cases(nat, rng, sid, path):
    statuses = set()
    for case in range(CASES):
        eta = int(rng.choice([2, 4, 8, 16] if path == "sampler" and sid == 3 else [2, 4, 8, 16, 32]))
        model = systems.get(sid)
        x, w = random_prior(rng, sid, eta)
        z, om, m = random_evidence(rng, sid)
        lik = model.likelihood(eta, path)
        ev = (z, om if om is not None else np.ones(1) if z.size == 1 else np.full(z.size, 1.0 / z.size))
        ref = ux.bayes_laplace((x, w), lik, ev, m, eta=eta)
        got, st = nat.bayes_laplace(sid, x, w, z, om, m, eta, path)
        assert st == int(ref.status), f"case {case}: status {st} vs {ref.status}"
        statuses.add(st)
        assert_same_value(got, ref.posterior, what=f"system {sid} {path} case {case}")
    assert Status.OK in statuses


@pytest.mark.parametrize("sid", TWIN_IDS)
def test_one_point_seen_once_matches(nat, rng, sid):
    # The filter's case (J = 1, ω = 1, m = 1), weighed in the linear domain: ω given or not, observations
    # from typical to far in the tails (there the log domain weighs).
    model = systems.get(sid)
    for case in range(40):
        eta = int(rng.choice([2, 4, 8, 16, 32]))
        x, w = random_prior(rng, sid, eta)
        z, _, _ = random_evidence(rng, sid)
        z = z[:1] * (1.0 if case % 4 else 30.0)
        ref = ux.bayes_laplace((x, w), model.likelihood(eta, "kernel"), z[0], 1, eta=eta)
        got, st = nat.bayes_laplace(sid, x, w, z, None if case % 2 else [1.0], 1, eta, "kernel")
        assert st == int(ref.status), f"case {case}: status {st} vs {ref.status}"
        assert_same_value(got, ref.posterior, what=f"system {sid} one point case {case}")


@pytest.mark.parametrize("path", ["kernel", "sampler"])
def test_fallback_matches(nat, path):
    # GSS sampler: an observation far beyond every predictive law has zero density everywhere. The
    # kernel path is Gaussian: never exactly zero in the log domain, so it still weighs.
    x, w = np.linspace(-3, 3, 16), np.full(16, 1 / 16)
    lik = systems.get(2).likelihood(8, path)
    ref = ux.bayes_laplace((x, w), lik, 1e6, 1, eta=8)
    got, st = nat.bayes_laplace(2, x, w, [1e6], None, 1, 8, path)
    assert st == int(ref.status) == (1 if path == "sampler" else 0)
    assert_same_value(got, ref.posterior)


def test_non_default_parameters(nat, rng):
    for case in range(40):
        params = (rng.uniform(0.5, 0.99), rng.uniform(-1, 1), rng.uniform(0.05, 1), rng.uniform(0.2, 3))
        model = systems.from_param_vector(1, params)
        x, w = random_prior(rng, 1, 8)
        ref = ux.bayes_laplace((x, w), model.likelihood(8, "kernel"), 0.7, 2, eta=8)
        got, st = nat.bayes_laplace(1, x, w, [0.7], None, 2, 8, "kernel", params=params)
        assert_same_value(got, ref.posterior, what=f"params case {case}")


def test_evidence_errors_match(nat):
    x, w = np.linspace(-1, 1, 8), np.full(8, 1 / 8)
    lik = systems.get(1).likelihood(8, "kernel")
    for z, om, m in [([np.nan], None, 1), ([0.0], [0.0], 1), ([0.0], None, 0)]:
        with pytest.raises(ValueError):
            ux.bayes_laplace((x, w), lik, (np.array(z), np.ones(1) if om is None else np.array(om)), m, eta=8)
        with pytest.raises(ValueError):
            nat.bayes_laplace(1, x, w, z, om, m, 8, "kernel")
