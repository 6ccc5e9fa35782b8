"""Fitting parameters by the filter's marginal likelihood, against the exact answer of the linear-Gaussian
system: the maximum of the Kalman filter's likelihood and its curvature."""

import math
import re

import numpy as np
import pytest

import uxemu
from uxemu import Kernel, Sampler, StateSpaceModel, fit, joint_systems, kalman, laws, systems, traces


@pytest.fixture(scope="module")
def lg_trace():
    return traces.simulate(systems.get("lg"), 300, np.random.default_rng(4))


def exact_fit(trace):
    """The exact MLE of (q, r) and its standard errors, from the Kalman likelihood."""
    return kalman.fit_noises(trace.z, systems.spec("lg").defaults[0], *systems.spec("lg").prior[1:])


def test_the_filter_likelihood_matches_kalman_on_lg(lg_trace):
    a, q, r = systems.spec("lg").defaults
    exact = kalman.kalman_filter(lg_trace.z, a, q, r, *systems.spec("lg").prior[1:]).log_likelihood
    got = fit.LogLikelihood("lg", lg_trace, eta=64)(systems.spec("lg").defaults)
    assert abs(got - exact) / lg_trace.z.size < 1e-3


def test_the_density_evidence_matches_kalman_on_lg(lg_trace):
    # The filter density's quadrature of each update's integral (evidence="density"): measured 1.7e-5 nats
    # per step from the exact likelihood at η = 64 and 1e-4 at η = 16.
    a, q, r = systems.spec("lg").defaults
    exact = kalman.kalman_filter(lg_trace.z, a, q, r, *systems.spec("lg").prior[1:]).log_likelihood
    for eta, tol in ((16, 3e-4), (64, 1e-4)):
        got = fit.LogLikelihood("lg", lg_trace, eta=eta, evidence="density")(systems.spec("lg").defaults)
        assert abs(got - exact) / lg_trace.z.size < tol, eta


def test_fit_finds_the_exact_maximum_likelihood_estimate(lg_trace):
    # η = 32: the estimate within a tenth of a standard error of the exact MLE, the standard errors within
    # 15 % of the exact ones, in a few dozen filter runs.
    best, se = exact_fit(lg_trace)
    res = fit.fit("lg", lg_trace, ["q", "r"], eta=32)
    assert res.converged and res.engine == "native"
    for name, b, s in zip(("q", "r"), best, se):
        assert abs(res.estimate[name] - b) < 0.1 * s, (name, res.estimate[name], b, s)
        assert abs(res.stderr[name] / s - 1) < 0.15, (name, res.stderr[name], s)
    assert res.evaluations < 300 and len(res.params) == 3 and res.params[0] == systems.spec("lg").defaults[0]


def test_native_and_reference_engines_agree(lg_trace):
    p = systems.spec("lg").defaults
    short = traces.Trace(lg_trace.k[:40], lg_trace.u[:40], lg_trace.z[:40])
    native = fit.LogLikelihood("lg", short, eta=8, engine="native")(p)
    reference = fit.LogLikelihood("lg", short, eta=8, engine="reference")(p)
    assert native == reference  # bit for bit: the same evidence rule in C and in the reference
    native = fit.LogLikelihood("lg", short, eta=8, engine="native", evidence="density")(p)
    reference = fit.LogLikelihood("lg", short, eta=8, engine="reference", evidence="density")(p)
    assert native == reference


def test_out_of_domain_parameters_have_no_likelihood_and_bad_names_are_refused(lg_trace):
    L = fit.LogLikelihood("lg", lg_trace, eta=8)
    assert L([0.95, -0.5, 1.0]) == -math.inf
    with pytest.raises(ValueError, match="free must name"):
        fit.fit("lg", lg_trace, ["sigma"])
    with pytest.raises(ValueError, match="unknown system"):
        fit.fit("nope", lg_trace, ["q"])
    with pytest.raises(ValueError, match="unknown evidence"):
        fit.fit("lg", lg_trace, ["q"], evidence="grid")
    for eta in (24, 128):  # the native engine's error was a bare UX_ERR_ARG
        with pytest.raises(ValueError, match=f"eta must be a power of two between 1 and 64, got {eta}"):
            fit.fit("lg", lg_trace, ["q"], eta=eta)
    with pytest.raises(ValueError, match="free names q more than once"):  # it was searched as two coordinates
        fit.fit("lg", lg_trace, ["q", "q"])


def test_a_trace_without_observations_is_not_fitted(lg_trace):
    # Every z missing: log L is 0 at every parameter, and the fit said "converged" with advice on η.
    empty = traces.Trace(lg_trace.k, lg_trace.u, np.full(lg_trace.z.size, np.nan))
    with pytest.raises(ValueError, match="no observation"):
        fit.fit("lg", empty, ["q", "r"])


def _quadratic(centre, information):
    centre, information = np.asarray(centre, float), np.asarray(information, float)

    def loglik(p):
        d = np.asarray(p, float)[[0, 1]] - centre
        return -0.5 * d @ information @ d

    return loglik


def test_standard_errors_are_exact_on_a_quadratic_log_likelihood():
    # The least-squares quadratic is exact on a quadratic: the standard errors are sqrt(diag(I⁻¹)) whatever
    # steps the search settles on, and nothing is left over.
    information = np.array([[400.0, 120.0], [120.0, 90.0]])
    se, roughness, jitter, indistinct = fit.standard_errors(_quadratic((0.3, 2.0), information), (0.3, 2.0), [0, 1])
    np.testing.assert_allclose(se, np.sqrt(np.diag(np.linalg.inv(information))), rtol=1e-9)
    assert roughness < 1e-9 and jitter < 1e-9 and indistinct == ()


def test_a_rough_log_likelihood_is_reported_not_read_as_curvature():
    # Bumps of 0.3 nats on a 0.01 scale (a reduction's cells moving with θ) on the same quadratic: the
    # residual of the quadratic says the standard errors do not hold.
    information = np.array([[400.0, 120.0], [120.0, 90.0]])
    smooth = _quadratic((0.3, 2.0), information)
    se, roughness, jitter, _ = fit.standard_errors(
        lambda p: smooth(p) + 0.3 * np.sin(p[0] / 0.01) * np.cos(p[1] / 0.013), (0.3, 2.0), [0, 1]
    )
    assert roughness > fit.ROUGHNESS_LIMIT and jitter > fit.JITTER_LIMIT
    result = fit.FitResult(
        "x", ("a", "b"), {}, {}, (), 0.0, 0, 0.0, True, "", "test", roughness=roughness, jitter=jitter
    )
    assert not result.stderr_reliable
    assert "not smooth on the scale of the standard errors" in result.why_unreliable
    assert "a larger η smooths it" in result.why_unreliable


def test_a_smooth_skewed_log_likelihood_is_told_from_a_rough_one():
    # Gaussian in log b (a noise scale's shape, sharpened: sd 0.25 in log b) and a quadratic in a: smooth,
    # yet far from a quadratic in b on the standard errors' scale (measured: 0.12 nats rms off it, 0.02 off a
    # cubic). Flagged, for its own reason: skewed.
    def loglik(p):
        return -0.5 * 400.0 * (p[0] - 0.3) ** 2 - 0.5 * (math.log(p[1]) / 0.25) ** 2 if p[1] > 0 else -math.inf

    se, roughness, jitter, _ = fit.standard_errors(loglik, (0.3, 1.0), [0, 1], positive=[False, True])
    assert roughness > fit.ROUGHNESS_LIMIT and jitter < fit.JITTER_LIMIT
    result = fit.FitResult(
        "x", ("a", "b"), {}, {}, (), 0.0, 0, 0.0, True, "", "test", roughness=roughness, jitter=jitter
    )
    assert not result.stderr_reliable
    assert "smooth but skewed" in result.why_unreliable and "not the filter's" in result.why_unreliable
    assert fit.FitResult("x", (), {}, {}, (), 0.0, 0, 0.0, True, "", "test", roughness=0.05).why_unreliable is None


def test_a_noise_scale_at_its_edge_costs_only_its_own_standard_error():
    # log L curves in a (information 400) and still rises as the scale b goes to 0, where the estimate
    # sits (5e-5): a noise scale the trace cannot tell from 0. The design stays inside b > 0 (outside it
    # log L is −∞, as LogLikelihood's), b has no standard error and a gets its own, b held at its estimate.
    calls = []

    def loglik(p):
        calls.append(tuple(p))
        return -math.inf if p[1] <= 0 else -0.5 * 400.0 * (p[0] - 0.3) ** 2 - 2.0 * p[1] + 1e4 * p[1] ** 2

    se, roughness, _, indistinct = fit.standard_errors(loglik, (0.3, 5e-5), [0, 1], positive=[False, True])
    assert min(b for _, b in calls) >= 2.5e-5
    assert math.isnan(se[1]) and indistinct == (1,)
    assert se[0] == pytest.approx(1 / math.sqrt(400.0), rel=1e-9)
    assert roughness < 1e-9
    result = fit.FitResult(
        "x",
        ("a", "b"),
        {},
        dict(zip("ab", se)),
        (),
        0.0,
        0,
        0.0,
        True,
        "",
        "test",
        roughness=roughness,
        jitter=0.0,
        indistinct=("b",),
    )
    assert result.why_no_stderr("a") is None
    assert "cannot tell it from 0" in result.why_no_stderr("b")


def test_a_parameter_along_which_log_l_rises_is_said_to_have_no_curvature():
    # A saddle at the point given (log L rises along b): b has no standard error, for that reason, and a its
    # own, b held at its estimate. b is no noise scale at its edge: nothing says the trace cannot tell it from 0.
    curvature = fit.standard_errors(
        lambda p: -0.5 * 400.0 * (p[0] - 0.3) ** 2 + 0.5 * (p[1] - 2.0) ** 2, (0.3, 2.0), [0, 1]
    )
    assert math.isnan(curvature.stderr[1]) and curvature.indistinct == ()
    assert curvature.stderr[0] == pytest.approx(0.05, rel=1e-9)
    result = fit.FitResult(
        "x",
        ("a", "b"),
        {},
        dict(zip("ab", curvature.stderr)),
        (),
        0.0,
        0,
        0.0,
        True,
        "",
        "test",
        roughness=curvature.roughness,
        jitter=curvature.jitter,
    )
    assert result.why_no_stderr("b") == "log L does not curve down along it at the optimum"


def test_a_wide_standard_error_near_zero_is_kept():
    # A scale estimated at 0.06 with a standard error of 0.064 (cubic's σ_v on a 500-step trace): the design
    # stays within ±0.03, where log L falls by only 0.1 nats, and the curvature read there still holds.
    def loglik(p):
        return -math.inf if p[1] <= 0 else -0.5 * 400.0 * (p[0] - 0.3) ** 2 - 0.5 * ((p[1] - 0.06) / 0.064) ** 2

    se, *_ = fit.standard_errors(loglik, (0.3, 0.06), [0, 1], positive=[False, True])
    np.testing.assert_allclose(se, [0.05, 0.064], rtol=1e-6)


# -- a model of your own ---------------------------------------------------------------------------------------
def sensor(q=1.0, r=0.5):
    """The README's own model (x' = 0.9x + u + w, z = x + v): linear-Gaussian, so Kalman is its oracle."""
    return StateSpaceModel(
        name="my-sensor",
        transition=lambda x, w, k, u: 0.9 * x + u + w,
        process_noise=laws.Normal(0, q),
        prior=laws.Normal(0, 2.0),
        sampler=Sampler(lambda x, v: x + v, (laws.Normal(0, r),)),
        kernel=Kernel("gaussian", lambda x: (x, r + 0 * x)),
        additive_noise=True,
    )


def test_a_model_of_your_own_is_fitted_to_its_exact_estimate():
    # A Python function of its parameters is fitted on the reference engine; its positive parameters are the
    # ones bounded at 0. Measured: within 0.003 of a standard error of the Kalman MLE, the standard errors
    # within 2 % of the exact ones (η = 8, 100 steps, 86 filter runs).
    trace = traces.simulate(sensor(0.7, 0.4), 100, np.random.default_rng(3))
    best, se = kalman.fit_noises(trace.z, 0.9, 0.0, 2.0)
    res = fit.fit(sensor, trace, ["q", "r"], bounds={"q": (0, None), "r": (0, None)}, eta=8)
    assert res.converged and res.engine == "reference" and res.system == "my-sensor"
    assert res.stderr_reliable
    for name, b, s in zip(("q", "r"), best, se):
        assert abs(res.estimate[name] - b) < 0.05 * s, (name, res.estimate[name], b, s)
        assert abs(res.stderr[name] / s - 1) < 0.1, (name, res.stderr[name], s)


def test_a_family_of_a_table_system_has_the_table_systems_likelihood(lg_trace):
    def lg(a=0.95, q=0.5, r=1.0):
        return systems.get("lg", a=a, q=q, r=r)

    short = traces.Trace(lg_trace.k[:40], lg_trace.u[:40], lg_trace.z[:40])
    family = fit.ModelFamily(lg, positive=("q", "r"))
    assert family.spec.param_names == ("a", "q", "r") and family.spec.defaults == (0.95, 0.5, 1.0)
    assert [p.domain for p in family.spec.params] == ["real", "positive", "positive"]
    for params in ((0.95, 0.5, 1.0), (0.9, 0.3, 1.4)):
        assert fit.LogLikelihood(family, short, eta=8)(params) == fit.LogLikelihood(
            "lg", short, eta=8, engine="native"
        )(params)
    assert fit.LogLikelihood(family, short, eta=8)((0.95, -0.5, 1.0)) == -math.inf  # outside its domain


@pytest.mark.parametrize(
    "make, complaint",
    [
        (lambda q, r=1.0: sensor(q, r), "every parameter needs a numeric default (the search's start); q"),
        (lambda q="1", r=1.0: sensor(float(q), r), "every parameter needs a numeric default (the search's start); q"),
        (lambda: sensor(), "it takes none"),
        (lambda q=1.0: "not a model", "returned str, not a StateSpaceModel"),
    ],
)
def test_a_model_family_that_cannot_be_fitted_says_why(make, complaint):
    with pytest.raises((ValueError, TypeError), match=re.escape(complaint)):
        fit.ModelFamily(make)


def test_a_model_of_your_own_runs_on_the_reference_engine_only(lg_trace):
    with pytest.raises(ValueError, match="Python only: it runs on the reference engine"):
        fit.LogLikelihood(fit.ModelFamily(sensor), lg_trace, engine="native")
    with pytest.raises(ValueError, match="has parameters q, r; no parameter s"):
        fit.ModelFamily(sensor, positive=("s",))
    with pytest.raises(ValueError, match="system my-sensor has parameters"):
        fit.fit(sensor, lg_trace, ["sigma"])


@pytest.mark.parametrize(
    "named, complaint",
    [
        (dict(bounds={"qq": (0, 1)}), "bounds names qq, not among the free parameters q"),
        (dict(start={"r": 1.0}), "start names r, not among the free parameters q"),
    ],
)
def test_a_bound_or_start_on_no_free_parameter_is_refused(lg_trace, named, complaint):
    # Refused before any filter runs: a misspelt bound would otherwise leave its parameter unbounded.
    with pytest.raises(ValueError, match=complaint):
        fit.fit("lg", lg_trace, ["q"], **named)


def test_a_start_without_a_log_likelihood_is_refused_with_the_reason(lg_trace):
    # A model with no kernel form fitted on the kernel likelihood: every filter run is refused, and the fit
    # says why at its first run instead of returning the start as a "converged" optimum.
    def sampler_only(q=1.0):
        return StateSpaceModel(
            name="no-kernel",
            transition=lambda x, w, k, u: 0.9 * x + w,
            process_noise=laws.Normal(0, q),
            prior=laws.Normal(0, 2.0),
            sampler=Sampler(lambda x, v: x + v, (laws.Normal(0, 0.5),)),
            additive_noise=True,
        )

    short = traces.Trace(lg_trace.k[:20], lg_trace.u[:20], lg_trace.z[:20])
    runs = []
    with pytest.raises(ValueError, match=r"no log-likelihood at the start \{'q': 1.0\}: .*declares no kernel form"):
        fit.fit(sampler_only, short, ["q"], bounds={"q": (0, None)}, eta=4, progress=lambda n, v: runs.append(v))
    assert runs == [-math.inf]
    assert fit.fit(sampler_only, short, ["q"], bounds={"q": (0, None)}, eta=4, likelihood="sampler").converged
    with pytest.raises(ValueError, match="start q = -1.0: not positive"):
        fit.fit("lg", short, ["q"], start={"q": -1.0})
    # An explosive AR(1) state: some observation has zero density under it, and the fit says so.
    sv = traces.simulate_many(systems.get("sv"), 1, 200, 5)[0]
    with pytest.raises(ValueError, match=r"start \{'phi': 3.0\}: the filter's log-likelihood is -inf \(an observation"):
        fit.fit("sv", sv, ["phi"], start={"phi": 3.0}, eta=8)


def joint_trace(name: str, steps: int, seed: int):
    _, z = joint_systems.simulate(joint_systems.get(name), steps, seed)
    return traces.Trace(np.arange(steps), np.zeros(steps), z)


def test_a_joint_systems_log_likelihood_is_the_cell_filters_without_exchange_on_either_engine():
    from uxemu import native
    from uxemu.joint_fit import JointLogLikelihood

    tr = joint_trace("pendulum", 40, 3)
    theta = (0.05, 9.81, 0.7, 0.25)
    value = JointLogLikelihood("pendulum", tr, eta=8, engine="reference")(theta)
    assert value == JointLogLikelihood("pendulum", tr, eta=8, engine="native")(theta)  # C = reference, bit for bit
    nat = native.load()
    assert value == nat.run_joint_cells(5, tr.z, 8, params=theta, exchange=False).log_likelihood
    assert value != nat.run_joint_cells(5, tr.z, 8, params=theta).log_likelihood  # the filter with its exchange


def test_a_joint_system_is_fitted_on_the_cell_filter():
    tr = joint_trace("cvrange", 300, 5000)  # simulated at q = 0.05, r = 0.5
    result = fit.fit("cvrange", tr, ["q", "r"], eta=16)
    assert result.converged and result.engine == "native" and result.better_seen is None
    for name, truth in (("q", 0.05), ("r", 0.5)):
        assert abs(result.estimate[name] - truth) < 2 * result.stderr[name], (name, result.estimate, result.stderr)
    # the optimum is the best of the fit's own runs, and above the truth's log L
    from uxemu.joint_fit import JointLogLikelihood

    assert result.log_likelihood >= JointLogLikelihood("cvrange", tr)((0.2, 0.05, 2.0, 0.5))


def test_a_joint_fit_names_an_influential_outlier():
    """cvrange with one range reading 40 noise sd off (r = 0.5): the fit on the cells says which (the cell filter's
    gate at the optimum, and a log evidence far below the others'), as the scalar fit does; the clean trace has
    none."""
    tr = joint_trace("cvrange", 120, 5001)
    assert fit.fit("cvrange", tr, ["r"], eta=8).outliers == ()
    z = tr.z.copy()
    z[70] = z[70] + 20.0
    result = fit.fit("cvrange", traces.Trace(tr.k, tr.u, z), ["r"], eta=8)
    assert result.outliers == (70,)


def test_a_fit_names_the_steps_its_optimum_leaves_inconsistent():
    """lg whose last 50 of 200 readings carry 10 times the sensor noise: no r fits both parts, and the filter at
    the optimum says INCONSISTENT on the noisy tail (docs/semantics.md, "Consistency"); the clean trace has none,
    and neither has the noisy one's head."""
    model = systems.get("lg")
    tr = traces.simulate(model, 200, np.random.default_rng(3))
    assert fit.fit("lg", tr, ["q", "r"], eta=8).inconsistent == ()
    z = tr.z.copy()
    z[150:] = tr.x[150:] + 10.0 * (tr.z[150:] - tr.x[150:])
    result = fit.fit("lg", traces.Trace(tr.k, tr.u, z), ["q", "r"], eta=8)
    assert len(result.inconsistent) > 10 and min(result.inconsistent) >= 150
    fitted = systems.get("lg", **dict(zip(("a", "q", "r"), result.params)))
    run = uxemu.run_filter(fitted, traces.Trace(tr.k, tr.u, z), 8, fit.DEFAULT_MODE)  # the fit's own filter
    assert result.inconsistent == tuple(int(k) for k in np.flatnonzero(run.status == uxemu.Status.INCONSISTENT))


@pytest.mark.parametrize(
    "options, complaint",
    [
        (dict(mode="refined"), r"cvrange is a joint system; mode 'refined' is not fitted: the joint atom filter"),
        (dict(evidence="density"), r"evidence 'density' is the scalar filter's density; a joint system's is 'update'"),
        (dict(likelihood="sampler"), r"cvrange is a joint system: its filter has the kernel likelihood only"),
    ],
)
@pytest.mark.parametrize("system", ["cvrange", joint_systems.spec("cvrange").id])  # by name or id
def test_what_a_joint_fit_does_not_take_is_refused_with_why(system, options, complaint):
    with pytest.raises(ValueError, match=complaint):
        fit.fit(system, joint_trace("cvrange", 20, 1), ["q"], **options)


# -- where the search starts, and an optimum below a run the fit saw -------------------------------------------
class Closed(fit.Evaluated):
    """A log-likelihood in closed form over named parameters (each default 1.0), with a trace `z` whose scale
    the scan of starts reads."""

    def __init__(self, function, z=(0.0,), **domains):
        params = tuple(systems.Param(name, 1.0, domain) for name, domain in domains.items())
        self.spec = systems.SystemSpec(0, "closed", "closed form", params, ("gaussian", 0.0, 1.0))
        z = np.asarray(z, dtype=np.float64)
        self.trace = traces.Trace(np.arange(z.size), np.zeros(z.size), z)
        self.engine, self.evidence, self.function = "closed form", "update", function

    def _value(self, params):
        return self.function(*params)


@pytest.mark.parametrize("q, r, seed", [(1000.0, 100.0, 4), (0.1, 0.01, 1)])
def test_a_trace_far_from_the_defaults_is_fitted_to_its_exact_estimate(q, r, seed):
    # A local level (a = 1) at scales far from the table's q = 0.5, r = 1. From the defaults alone the search
    # climbed r first and stopped on a ridge, "converged", 341 nats below the maximum on the first trace (q =
    # 1.7e-5, r = 5463: 17.7 and 45.6 exact standard errors from the Kalman MLE q = 992.6, r = 110.9). The scan
    # of starts from the trace's own scale finds the maximum: measured 1e-5 se from it (the second trace: 0.003).
    trace = traces.simulate(systems.get("lg", a=1.0, q=q, r=r), 200, np.random.default_rng(seed))
    best, se = kalman.fit_noises(trace.z, 1.0, *systems.spec("lg").prior[1:], start=(q, r))
    res = fit.fit("lg", trace, ["q", "r"], fixed={"a": 1.0}, eta=16, engine="native")
    for name, b, s in zip(("q", "r"), best, se):
        assert abs(res.estimate[name] - b) < 2 * s, (name, res.estimate[name], b, s)
    assert res.converged and res.better_seen is None


def _bimodal(s):
    # log L in log s: a local maximum (0) at the default s = 1, the maximum (50) at the data's scale, s = 100.
    u = math.log(s)
    return max(-20.0 * u * u, 50.0 - 20.0 * (u - math.log(100.0)) ** 2)


def test_the_scan_starts_the_search_at_the_datas_scale():
    # From the default alone the search stays on the local maximum (it did, "converged", at s = 1); the scan
    # tries the default first, then levels from the trace's spread (about 100 here), and climbs from the best.
    z = 100.0 * np.random.default_rng(0).standard_normal(200)
    stages = []
    res = fit.maximise(Closed(_bimodal, z=z, s="positive"), ["s"], stage=stages.append)
    assert res.estimate["s"] == pytest.approx(100.0, rel=1e-3) and res.log_likelihood == pytest.approx(50.0, abs=1e-6)
    assert res.converged and res.history[0][0] == (1.0,) and stages == list(fit.STAGES)
    # Given a start, the scan leaves that parameter there: the local maximum, and nothing better was run.
    res = fit.maximise(Closed(_bimodal, z=z, s="positive"), ["s"], start={"s": 1.0})
    assert res.estimate["s"] == pytest.approx(1.0, abs=1e-3) and res.converged and res.better_seen is None


def test_the_scan_is_a_few_runs_from_the_start_and_the_traces_scale():
    # Per positive parameter without a start: its start, then the trace's spreads (0.1, 0.32 and 1 times that of
    # its differences, and that of its values), each at least half a step from those taken; a real parameter, or
    # one given a start, stays at its start. Two such parameters: every combination, at most 25 runs.
    trace = traces.simulate(systems.get("lg", a=1.0, q=30.0, r=3.0), 200, np.random.default_rng(1))
    spec = systems.spec("lg")
    axes = fit.scan_axes(fit.Problem(spec, ["a", "q", "r"], None, {"r": 2.0}, None), trace)
    assert axes[0] == [0.95] and axes[2] == [math.log(2.0)] and axes[1][0] == math.log(0.5)
    assert 2 <= len(axes[1]) <= 5 and min(np.diff(sorted(axes[1]))) > math.log(fit.SCAN_MERGE)
    seen = []
    fit.scan(lambda u: seen.append(u) or 0.0, fit.scan_axes(fit.Problem(spec, ["q", "r"], None, None, None), trace))
    assert len(set(seen)) == len(seen) <= 25 and seen[0] == (math.log(0.5), math.log(1.0))
    # Three of five levels each would be 125: the levels taken alike, then each parameter's: 5 + 3 × 4 runs.
    seen = set()
    fit.scan(lambda u: seen.add(u) or -sum(x * x for x in u), [[0.0, 1.0, 2.0, 3.0, 4.0]] * 3)
    assert len(seen) == 5 + 3 * 4


def _spiked(a):
    # A smooth log L with a narrow bump 10 nats high that the search from 0 does not see and the standard
    # errors' doubling steps (1e-3 · 2^k) land on, at a = 0.016: log L not smooth there.
    return -50.0 * a * a + (10.0 if 0.0159 < a < 0.0161 else 0.0)


def test_a_run_better_than_the_optimum_is_climbed_from():
    # The standard errors' runs found the bump: the fit searches again from it, and reports that maximum.
    stages = []
    res = fit.maximise(Closed(_spiked, a="real"), ["a"], start={"a": 0.0}, stage=stages.append)
    assert 0.0159 < res.estimate["a"] < 0.0161 and res.log_likelihood > 9.98
    assert res.converged and res.better_seen is None
    assert stages == [*fit.STAGES, *fit.STAGES[1:]]
    assert res.log_likelihood >= max(value for _, value in res.history) - fit.BEST_FLOOR


def test_an_optimum_below_a_run_the_fit_saw_is_not_converged(monkeypatch):
    # No second search: the optimum (a = 0, log L 0) is below a run of the fit (the bump's, 9.99), so the fit
    # says where that run was and is not converged (before, it said "converged" at 0).
    monkeypatch.setattr(fit, "MAX_POLISHES", 0)
    res = fit.maximise(Closed(_spiked, a="real"), ["a"], start={"a": 0.0})
    assert res.estimate["a"] == 0.0 and not res.converged
    where, value = res.better_seen
    assert where == {"a": 0.016} and value == pytest.approx(10.0 - 50.0 * 0.016**2)
    assert res.message == res.why_not_best
    assert res.why_not_best.startswith("a filter run at a = 0.016 had log L 9.9872, 9.99 nats above the optimum's")
    # Within the search's own precision (BEST_FLOOR) a run is no better: a fit of a smooth log L is converged.
    res = fit.maximise(Closed(lambda a: -50.0 * a * a, a="real"), ["a"], start={"a": 0.0})
    assert res.converged and res.better_seen is None
