"""A fallback the density's nodes weigh: where every predictive point misses a bounded likelihood (a quantizer's
uniform noise, the sampler likelihood's bins) but the density's quadrature finds it, the update's posterior is
that quadrature's (docs/semantics.md, "a fallback") — against the exact answer (Kalman, the grid filter), C and
reference bit for bit; where the nodes find nothing either, and in paper mode, FALLBACK stays."""

import math

import numpy as np
import pytest

from uxbench import regime_metrics as metrics
from uxbench import user_models
from uxbench.baselines.grid import grid_filter
from uxemu import filter as uf
from uxemu import kalman, native, systems
from uxemu.bayes import Status
from uxemu.traces import Trace, simulate

# lg with its sensor 20× more precise, on the sampler likelihood at η = 4: the points' bins miss the reading on
# a third of the steps (d36592e: FALLBACK at 21 of 60 steps refined, 19 mixture; log L −∞; refined 53.5 Kalman sd
# off, its variance up to 1,579× Kalman's).
PRECISE = dict(r=0.05)
PRECISE_SEED = 102


def _precise():
    model = systems.get("lg", **PRECISE)
    return model, simulate(model, 60, np.random.default_rng(PRECISE_SEED))


def _rescues(monkeypatch) -> list:
    """Counts, in the reference, the updates whose BayesLaplace fell back and whose status is not FALLBACK."""
    found, weigh = [], uf.BayesLaplaceFilter._quadrature_posterior

    def counted(self, res, *args, **kwargs):
        status = weigh(self, res, *args, **kwargs)
        found.append(res.status == Status.FALLBACK and status != Status.FALLBACK)
        return status

    monkeypatch.setattr(uf.BayesLaplaceFilter, "_quadrature_posterior", counted)
    return found


@pytest.mark.parametrize("mode", ["refined", "mixture"])
def test_a_precise_sensor_on_the_sampler_likelihood_is_kalmans_answer(mode, monkeypatch):
    model, tr = _precise()
    rescued = _rescues(monkeypatch)
    run = uf.BayesLaplaceFilter(model, 4, mode, likelihood="sampler").run(tr)
    exact = kalman.for_model(model, tr.z)
    assert sum(rescued) >= 10  # the points missed on those steps; the nodes weighed them
    assert Status.FALLBACK not in set(run.status.tolist())
    assert np.max(np.abs(run.mean - exact.mean) / np.sqrt(exact.var)) < 0.1
    ratio = run.var / exact.var
    assert 0.8 < ratio.min() and ratio.max() < 1.25
    assert abs(run.log_likelihood - exact.log_likelihood) < 0.1


@pytest.mark.skipif(not native.available(), reason="needs the C core: make native")
@pytest.mark.parametrize("mode", ["refined", "mixture", "paper"])
def test_c_weighs_a_fallback_on_the_nodes_as_the_reference_does(mode):
    nat = native.load()
    cases = [(_precise(), True), ((systems.get("lg", r=0.01, q=1.0), None), False)]
    for (model, tr), found in cases:
        tr = tr or simulate(model, 60, np.random.default_rng(100))
        ref = uf.BayesLaplaceFilter(model, 4, mode, likelihood="sampler").run(tr)
        c = nat.run_filter(
            model.system_id, tr.k, tr.u, tr.z, eta=4, mode=mode, likelihood="sampler", params=model.params, atoms=False
        )
        assert np.array_equal(ref.mean, c.mean) and np.array_equal(ref.var, c.var)
        assert np.array_equal(np.asarray(ref.status), np.asarray(c.status))
        assert ref.log_likelihood == c.log_likelihood or (math.isnan(ref.log_likelihood) and math.isnan(c.log_likelihood))
        # paper mode keeps the paper's fallback; the narrower sensor's bins lie between the nodes too
        assert (Status.FALLBACK in set(c.status.tolist())) == (mode == "paper" or not found)
        assert math.isfinite(c.log_likelihood) == (mode != "paper" and found)


def test_a_reading_no_point_reaches_is_weighed_as_the_grid_weighs_it():
    """user_models' fast quantizer, seed 7001, at η = 16: at step 5 the state jumps 2.5 process sd, the reading's
    window [2.55, 3.55] lies 2.8–3.8 predictive sd below every point (d36592e: FALLBACK, log evidence −∞, the
    next step OK and 0.52 sd off with evidence 1.4 nats low)."""
    user = {m.label: m for m in user_models.MODELS}["quantizer, fast"]
    full = simulate(user.model, 200, np.random.default_rng(7001))
    tr = Trace(full.k[:9], full.u[:9], full.z[:9], full.x[:9])
    exact = grid_filter(user.model, tr, n_points=user_models.GRID_POINTS, tail=user.tail)
    run = uf.BayesLaplaceFilter(user.model, 16, "refined").run(tr)
    assert run.status[5] == Status.OK and math.isfinite(run.log_evidence[5])
    for t in (5, 6):
        assert metrics.mean_error_sd(run.mean[t], exact.mean[t], exact.var[t]) < 0.1
        assert 0.8 < run.var[t] / exact.var[t] < 1.25
        assert abs(run.log_evidence[t] - exact.log_evidence[t]) < 0.1
