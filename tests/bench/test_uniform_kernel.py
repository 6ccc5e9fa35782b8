"""A kernel likelihood that is zero somewhere (an ADC's uniform noise, a window about x). Where every predictive
point misses it but the density's quadrature finds it, the update's posterior is that quadrature's
(docs/semantics.md, "Filter", update); in paper mode, and with the sampler likelihood (whose zeros are its
bins'), FALLBACK stays. The window's edges are no hidden peaks (docs/semantics.md, "Filter", the hidden peaks).
Against the grid filter, and C bit for bit with the reference."""

import ctypes
import dataclasses
import math

import numpy as np
import pytest

from uxbench import regime_metrics as metrics
from uxbench import user_models
from uxbench.baselines.grid import grid_filter
from uxemu import filter as uf
from uxemu import laws, native, systems
from uxemu.bayes import Status
from uxemu.facts import LAW_KINDS
from uxemu.model import Kernel
from uxemu.traces import Trace, simulate

needs_native = pytest.mark.skipif(not native.available(), reason="needs the C core: make native")


def _rescues(monkeypatch) -> list:
    """Records, in the reference, whether each update's BayesLaplace fell back and its status is not FALLBACK."""
    found, weigh = [], uf.BayesLaplaceFilter._quadrature_posterior

    def counted(self, res, *args, **kwargs):
        status = weigh(self, res, *args, **kwargs)
        found.append(res.status == Status.FALLBACK and status != Status.FALLBACK)
        return status

    monkeypatch.setattr(uf.BayesLaplaceFilter, "_quadrature_posterior", counted)
    return found


def _quantizer_steps(label: str, seed: int, steps: int):
    """One of user_models' quantizers (a random walk read by an ADC of step 1, prior N(0, 5²)) and the first steps
    of its trace of that seed, as the study draws it."""
    user = {m.label: m for m in user_models.MODELS}[label]
    full = simulate(user.model, user_models.STEPS, np.random.default_rng(seed))
    return user, Trace(full.k[:steps], full.u[:steps], full.z[:steps], full.x[:steps])


def test_a_reading_no_point_reaches_is_weighed_as_the_grid_weighs_it():
    """user_models' fast quantizer, seed 7001, at η = 16: at step 5 the state jumps 2.5 process sd, the reading's
    window [2.55, 3.55] lies 2.8–3.8 predictive sd below every point (d36592e: FALLBACK, log evidence −∞, the
    next step OK and 0.52 sd off with evidence 1.4 nats low)."""
    user, tr = _quantizer_steps("quantizer, fast", 7001, 9)
    exact = grid_filter(user.model, tr, n_points=user_models.GRID_POINTS, tail=user.tail)
    run = uf.BayesLaplaceFilter(user.model, 16, "refined").run(tr)
    assert run.status[5] == Status.OK and math.isfinite(run.log_evidence[5])
    for t in (5, 6):
        assert metrics.mean_error_sd(run.mean[t], exact.mean[t], exact.var[t]) < 0.1
        assert 0.8 < run.var[t] / exact.var[t] < 1.25
        assert abs(run.log_evidence[t] - exact.log_evidence[t]) < 0.1


def _uniform_lg(nat, monkeypatch, **params):
    """lg's own C code with its kernel's family uniform (a window of width r about x), as the native core's
    system 4, and its Python twin at `params` (q = 1 unless given)."""
    lg = nat.model(4).contents
    code = nat.ModelCode.from_buffer_copy(lg.code.contents)
    code.family = LAW_KINDS["uniform"]
    model = nat.Model.from_buffer_copy(lg)
    model.code = ctypes.pointer(code)
    pointer = ctypes.pointer(model)
    monkeypatch.setattr(nat, "model", lambda _id: pointer)  # the pointer keeps the model and its code alive
    twin = systems.get("lg", **({"q": 1.0} | params))
    return dataclasses.replace(twin, kernel=Kernel("uniform", twin.kernel.loc_scale))


def test_a_windows_edge_is_no_hidden_peak():
    """Seed 7003, mixture at η = 8: after the first reading the posterior is a plateau whose predictive ripples
    (eight components 0.125 apart, sd 0.062); the next window's edge cut it beside its largest node, which read as
    a peak narrower than the nodes, and the quadrature narrowed onto three ripples of it (d36592e's rule: step 1
    1.0 sd off, variance 0.23×, evidence 2 nats low, status OK)."""
    user, tr = _quantizer_steps("quantizer, slow", 7003, 6)
    exact = grid_filter(user.model, tr, n_points=user_models.GRID_POINTS, tail=user.tail)
    run = uf.BayesLaplaceFilter(user.model, 8, "mixture").run(tr)
    assert not uf.seeks_peaks(uf.BayesLaplaceFilter(user.model, 8, "mixture").likelihood)
    for t in range(1, 6):
        assert metrics.mean_error_sd(run.mean[t], exact.mean[t], exact.var[t]) < 0.1
        assert 0.8 < run.var[t] / exact.var[t] < 1.25
        assert abs(run.log_evidence[t] - exact.log_evidence[t]) < 0.05


@needs_native
@pytest.mark.parametrize("mode, eta, seed", [("mixture", 8, 7003), ("refined", 4, 7001)])
def test_c_seeks_no_peaks_at_a_windows_edge_as_the_reference(mode, eta, seed, monkeypatch):
    """The slow quantizer as lg's C code (a = 1, q = 0.05, a window of 1, prior N(0, 5²)): where the old rule took
    the edge for a peak (log L −15.53 → −12.47 at seed 7003, −24.53 → −21.68 at 7001), C = reference bit for bit."""
    nat = native.load()
    twin = dataclasses.replace(_uniform_lg(nat, monkeypatch, a=1.0, q=0.05, r=1.0), prior=laws.Normal(0, 5))
    _, tr = _quantizer_steps("quantizer, slow", seed, 60)
    ref = uf.BayesLaplaceFilter(twin, eta, mode).run(tr)
    c = nat.run_filter(4, tr.k, tr.u, tr.z, eta=eta, mode=mode, params=twin.params, prior=("gaussian", 0.0, 5.0))
    assert np.array_equal(ref.mean, c.mean) and np.array_equal(ref.var, c.var)
    assert np.array_equal(np.asarray(ref.status), np.asarray(c.status)) and ref.log_likelihood == c.log_likelihood


@needs_native
@pytest.mark.parametrize("eta", [1, 4, 16])
@pytest.mark.parametrize("mode", ["refined", "mixture", "paper"])
def test_c_weighs_a_fallback_on_the_nodes_as_the_reference_does(mode, eta, monkeypatch):
    nat = native.load()
    twin = _uniform_lg(nat, monkeypatch)
    rescued = _rescues(monkeypatch)
    tr = simulate(twin, 60, np.random.default_rng(2))
    ref = uf.BayesLaplaceFilter(twin, eta, mode).run(tr)
    c = nat.run_filter(4, tr.k, tr.u, tr.z, eta=eta, mode=mode, params=twin.params, atoms=False)
    assert np.array_equal(ref.mean, c.mean) and np.array_equal(ref.var, c.var)
    assert np.array_equal(np.asarray(ref.status), np.asarray(c.status))
    assert ref.log_likelihood == c.log_likelihood or ref.log_likelihood == c.log_likelihood == -math.inf
    fallbacks = int(np.count_nonzero(np.asarray(c.status) == Status.FALLBACK))
    if mode == "paper":  # the paper's algorithm keeps its fallback
        assert sum(rescued) == 0 and fallbacks > 0 and c.log_likelihood == -math.inf
    else:  # at η = 4 d36592e's core fell back at 9 of these 60 steps, log L −∞
        assert sum(rescued) >= 3 and fallbacks == 0 and math.isfinite(c.log_likelihood)


@needs_native
@pytest.mark.parametrize("mode", ["refined", "mixture"])
def test_the_sampler_likelihood_keeps_its_fallback(mode):
    """lg with its sensor 20× more precise on the sampler likelihood at η = 4: its bins miss the reading at every
    point on a third of the steps. Weighed on the nodes, the sampler's fallbacks made the filtering tables worse
    (cubic η = 2 RMSE 0.122 → 0.278), so they stay (C and reference)."""
    nat = native.load()
    model = systems.get("lg", r=0.05)
    tr = simulate(model, 60, np.random.default_rng(102))
    ref = uf.BayesLaplaceFilter(model, 4, mode, likelihood="sampler").run(tr)
    c = nat.run_filter(
        model.system_id, tr.k, tr.u, tr.z, eta=4, mode=mode, likelihood="sampler", params=model.params, atoms=False
    )
    assert np.array_equal(ref.mean, c.mean) and np.array_equal(np.asarray(ref.status), np.asarray(c.status))
    assert int(np.count_nonzero(np.asarray(c.status) == Status.FALLBACK)) >= 15
    assert ref.log_likelihood == c.log_likelihood == -math.inf
