"""Simulation from the C models (ux_abi_simulate through uxemu.native.Native.simulate).

The C simulation draws from the core's generator, the reference from numpy's, so the two never agree value
for value: they are held to the same law. Many traces of each engine are compared step by step — means and
variances within sampling error, and a two-sample Kolmogorov–Smirnov test — and every law a model or a prior
can name is checked against its exact distribution. Seeds are fixed, so every outcome is reproducible.
"""

import numpy as np
import pytest
from scipy import stats

from uxemu import native, systems

TRACES = 4000  # per engine: a 10 % error in a noise scale moves a variance by ~6 standard errors
STEPS = 12
AT = (0, 1, 4, STEPS - 1)
SCORE = 4.5  # standard errors a mean or variance may differ by (deterministic seeds: no flakiness)
KS_P = 1e-4


def twin_traces(name: str, n: int, steps: int, seed: int, **params):
    """(x, z), each (steps, n): n traces of the Python twin, drawn side by side with the twin's own laws and
    functions (as uxemu.simulate does one trace at a time)."""
    model = systems.get(name, **params)
    rng = np.random.default_rng(seed)
    x = np.empty((steps, n))
    x[0] = model.prior.sample(rng, n)
    for k in range(1, steps):
        x[k] = model.sample_transition(x[k - 1], k, 0.0, rng)
    return x, model.sample_observation(x, rng)


def c_traces(nat, name: str, n: int, steps: int, seed: int, likelihood=None, params=None):
    traces = nat.simulate(name, steps, seed, traces=n, params=params, likelihood=likelihood)
    return np.array([t.x for t in traces]).T, np.array([t.z for t in traces]).T


def moment_scores(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(mean, variance) differences of two samples in standard errors (the variance's from the fourth central
    moment)."""

    def var_and_se(s):
        c = s - s.mean()
        v = np.mean(c**2)
        return v, np.sqrt(max(np.mean(c**4) - v * v, 0.0) / s.size)

    mean_score = (a.mean() - b.mean()) / np.sqrt(a.var() / a.size + b.var() / b.size)
    (va, sa), (vb, sb) = var_and_se(a), var_and_se(b)
    return float(mean_score), float((va - vb) / np.hypot(sa, sb))


def columns(name: str, x: np.ndarray, z: np.ndarray):
    """(label, values) at each step of AT that the engines are compared on: the state, the reading, the
    reading's residual z − x (the observation noise as the state leaves it) and the state's increment
    x_k − x_{k−1} (the process noise as the transition leaves it). sv's reading ε·exp(x/2) has heavy tails
    (its sample variance is no measure): log|z| and log|z| − x/2 = log|ε| stand for it, with every moment."""
    heavy = name == "sv"
    for k in AT:
        yield f"x_{k}", x[k]
        yield f"z_{k}", np.log(np.abs(z[k])) if heavy else z[k]
        yield f"(z-x)_{k}", np.log(np.abs(z[k])) - x[k] / 2 if heavy else z[k] - x[k]
        if k:
            yield f"(x_{k}-x_{k - 1})", x[k] - x[k - 1]


def differences(name: str, c, p):
    """Every comparison of the C traces c = (x, z) with the twin's p: (label, mean score, variance score,
    KS p-value)."""
    for (label, a), (_, b) in zip(columns(name, *c), columns(name, *p)):
        yield (label, *moment_scores(a, b), stats.ks_2samp(a, b).pvalue)


@pytest.mark.parametrize("likelihood", ["sampler", "kernel"])
@pytest.mark.parametrize("name", systems.with_twin())
def test_the_c_simulation_draws_the_twins_law(nat, name, likelihood):
    c = c_traces(nat, name, TRACES, STEPS, 11, likelihood)
    p = twin_traces(name, TRACES, STEPS, 12)
    for label, mean_score, var_score, ks in differences(name, c, p):
        where = f"{name} {label} ({likelihood})"
        assert abs(mean_score) < SCORE, f"{where}: means differ by {mean_score:.2f} se"
        assert abs(var_score) < SCORE, f"{where}: variances differ by {var_score:.2f} se"
        assert ks > KS_P, f"{where}: two-sample KS p = {ks:.2g}"


@pytest.mark.parametrize(
    "params, wrong", [([0.95, 0.5, 1.15], "(z-x)"), ([0.95, 0.6, 1.0], "(x_"), ([0.9, 0.5, 1.0], "x_")]
)
def test_the_comparison_sees_a_wrong_parameter(nat, params, wrong):
    """The test above has the power it claims: lg simulated in C with one parameter off (r 15 % too large,
    q 20 %, a 0.9 for 0.95) is told apart from the twin's lg, by the comparisons that parameter moves."""
    c = c_traces(nat, "lg", TRACES, STEPS, 11, params=params)
    p = twin_traces("lg", TRACES, STEPS, 12)
    flagged = {
        label
        for label, mean_score, var_score, ks in differences("lg", c, p)
        if max(abs(mean_score), abs(var_score)) > SCORE or ks < KS_P
    }
    assert any(label.startswith(wrong) for label in flagged), flagged


LAWS = [  # (kind, a, b, c) as ux_law takes them, and scipy's distribution
    (("gaussian", 1.5, 2.0), stats.norm(1.5, 2.0)),
    (("laplace", -1.0, 0.5), stats.laplace(-1.0, 0.5)),
    (("uniform", -2.0, 3.0), stats.uniform(-2.0, 5.0)),
    (("exponential", 2.5, 0.0), stats.expon(scale=2.5)),
    (("student_t", 3.0, 1.0, 2.0), stats.t(3.0, 1.0, 2.0)),
    (("student_t", 1.5, 0.0, 1.0), stats.t(1.5)),
    (("lognormal", 0.3, 0.6), stats.lognorm(0.6, scale=np.exp(0.3))),
]


@pytest.mark.parametrize("law, exact", LAWS, ids=[f"{law[0]}-{law[1]}" for law, _ in LAWS])
def test_each_law_is_drawn_from_itself(nat, law, exact):
    """x_0 is a draw of the prior: with the prior set to each law the core knows, its draws follow that law
    exactly (one-sample KS against scipy's cdf, mean and variance where they exist)."""
    x0 = np.array([t.x[0] for t in nat.simulate("lg", 1, 5, traces=TRACES, prior=law)])
    assert stats.kstest(x0, exact.cdf).pvalue > KS_P
    assert abs(x0.mean() - exact.mean()) < SCORE * exact.std() / np.sqrt(x0.size) or not np.isfinite(exact.var())
    if law[0] == "exponential":
        assert x0.min() >= 0
    if law[0] == "uniform":
        assert -2.0 <= x0.min() and x0.max() < 3.0


def test_a_point_prior_starts_every_trace_there(nat):
    assert {t.x[0] for t in nat.simulate("gss", 3, 1, traces=5, prior=("point", 2.5, 0.0))} == {2.5}


@pytest.mark.parametrize("name", systems.names())
def test_the_same_seed_gives_the_same_bits(nat, name):
    a = nat.simulate(name, 50, 2026, traces=3)
    b = nat.simulate(name, 50, 2026, traces=3)
    for s, t in zip(a, b):
        assert s.x.tobytes() == t.x.tobytes() and s.z.tobytes() == t.z.tobytes()
    other = nat.simulate(name, 50, 2027)[0]
    assert not np.array_equal(other.x, a[0].x) and not np.array_equal(other.z, a[0].z)
    assert not np.array_equal(a[0].x, a[1].x)  # traces of one seed are streams of their own


def test_trace_i_does_not_depend_on_how_many_are_drawn(nat):
    three = nat.simulate("cubic", 20, 9, traces=3)
    five = nat.simulate("cubic", 20, 9, traces=5)
    for s, t in zip(three, five):
        assert s.x.tobytes() == t.x.tobytes() and s.z.tobytes() == t.z.tobytes()


def test_the_float_build_is_deterministic_too(nat_f):
    a, b = nat_f.simulate("sv", 30, 4)[0], nat_f.simulate("sv", 30, 4)[0]
    assert a.x.tobytes() == b.x.tobytes() and a.z.tobytes() == b.z.tobytes()
    assert np.all(a.x == a.x.astype(np.float32))  # the state is the float build's real type


def test_a_trace_carries_what_a_simulated_trace_does(nat):
    u = np.linspace(0, 1, 6)
    t = nat.simulate("gss", 6, 3, params=[2.0, 0.5], u=u)[0]
    assert list(t.k) == list(range(6)) and np.array_equal(t.u, u) and len(t) == 6
    assert t.meta == {"system": "gss", "params": "2.0,0.5"}
    assert np.all(np.isfinite(t.x)) and np.all(np.isfinite(t.z))
    by_id = nat.simulate(systems.spec("gss").id, 6, 3, params=[2.0, 0.5], u=u)[0]
    assert by_id.z.tobytes() == t.z.tobytes()


@pytest.mark.parametrize("name", systems.with_twin())
def test_the_kernel_form_draws_what_the_sampler_form_does(nat, name):
    """The kernel form draws the inner noise, then t of the family's standard member, and reads loc + scale·t;
    the shipped systems' samplers are that same expression over the same noises, so from one seed the two
    forms give the same states and the same readings to rounding."""
    s, k = (nat.simulate(name, 40, 8, likelihood=form)[0] for form in ("sampler", "kernel"))
    assert s.x.tobytes() == k.x.tobytes()
    assert np.allclose(s.z, k.z, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda nat: nat.simulate("nope", 5, 1), "no scalar system 'nope'"),
        (lambda nat: nat.simulate("pendulum", 5, 1), "no scalar system 'pendulum'"),
        (lambda nat: nat.simulate(250, 5, 1), "no scalar system 250"),
        (lambda nat: nat.simulate("lg", 0, 1), "steps must be"),
        (lambda nat: nat.simulate("lg", 5, -1), "seed"),
        (lambda nat: nat.simulate("lg", 5, 2**64), "seed"),
        (lambda nat: nat.simulate("lg", 5, 1, traces=0), "traces at least 1"),
        (lambda nat: nat.simulate("lg", 5, 1, likelihood="exact"), "likelihood is one of"),
        (lambda nat: nat.simulate("lg", 5, 1, u=[0.0]), "one control input per step"),
        (lambda nat: nat.simulate("lg", 5, 1, params=[1.0, 2.0]), "takes 3 parameters"),
    ],
)
def test_bad_arguments_are_refused(nat, call, error):
    with pytest.raises(ValueError, match=error):
        call(nat)


@pytest.mark.parametrize(
    "kw",
    [
        dict(params=[0.95, -0.5, 1.0]),
        dict(params=[float("nan"), 0.5, 1.0]),
        dict(prior=("gaussian", 0.0, 0.0)),
        dict(prior=("student_t", 0.5, 0.0, 1.0)),
        dict(prior=("uniform", 1.0, 1.0)),
    ],
)
def test_parameters_outside_their_domain_are_refused_by_the_core(nat, kw):
    with pytest.raises(native.NativeDomainError, match="ux_abi_simulate"):
        nat.simulate("lg", 5, 1, **kw)


def test_a_library_built_before_simulation_says_to_rebuild(nat):
    stale = native.Native(nat.path)
    stale.lib = type("OldLibrary", (), {})()  # what a libux.so without ux_abi_simulate offers it
    with pytest.raises(native.NativeLayoutError, match=r"(?s)rebuild it \(`make native`\).*ux_abi_simulate is missing"):
        stale.simulate("lg", 5, 1)


# -- joint systems (ux_abi_joint_simulate) ------------------------------------------------------------------


def twin_joint_traces(name: str, n: int, steps: int, seed: int, **params):
    """(x (steps, n, dim), z (steps, n, dim_obs)): n traces of the joint twin side by side."""
    from uxemu import joint_systems

    model = joint_systems.get(name, **params)
    rng = np.random.default_rng(seed)
    x = np.empty((steps, n, model.dim))
    x[0] = model.sample_prior(rng, n)
    for k in range(1, steps):
        x[k] = model.sample_transition(x[k - 1], k, 0.0, rng)
    return x, np.stack([model.sample_observation(x[k], rng) for k in range(steps)])


def c_joint_traces(nat, name: str, n: int, steps: int, seed: int, params=None):
    pairs = nat.simulate_joint(name, steps, seed, traces=n, params=params)
    return np.stack([x for x, _ in pairs], axis=1), np.stack([z for _, z in pairs], axis=1)


def joint_differences(c, p):
    """(label, mean score, variance score, KS p) for every state and reading component and every state
    increment at the steps of AT."""
    for k in AT:
        for label, a, b in (
            [(f"x{i}_{k}", c[0][k, :, i], p[0][k, :, i]) for i in range(c[0].shape[2])]
            + [(f"z{i}_{k}", c[1][k, :, i], p[1][k, :, i]) for i in range(c[1].shape[2])]
            + [
                (f"(x{i}_{k}-x{i}_{k - 1})", c[0][k, :, i] - c[0][k - 1, :, i], p[0][k, :, i] - p[0][k - 1, :, i])
                for i in range(c[0].shape[2])
                if k
            ]
        ):
            yield (label, *moment_scores(a, b), stats.ks_2samp(a, b).pvalue)


@pytest.mark.parametrize("name", ["pendulum", "cvrange"])
def test_the_c_joint_simulation_draws_the_twins_law(nat, name):
    c = c_joint_traces(nat, name, TRACES, STEPS, 21)
    p = twin_joint_traces(name, TRACES, STEPS, 22)
    for label, mean_score, var_score, ks in joint_differences(c, p):
        assert abs(mean_score) < SCORE, f"{name} {label}: means differ by {mean_score:.2f} se"
        assert abs(var_score) < SCORE, f"{name} {label}: variances differ by {var_score:.2f} se"
        assert ks > KS_P, f"{name} {label}: two-sample KS p = {ks:.2g}"


def test_the_joint_comparison_sees_a_wrong_parameter(nat):
    """pendulum in C with its process noise q 30 % too large, or its sensor noise r 33 %, is told apart."""
    p = twin_joint_traces("pendulum", TRACES, STEPS, 22)
    for params, wrong in (([0.05, 9.81, 0.65, 0.3], "(x1_"), ([0.05, 9.81, 0.5, 0.4], "z0_")):
        c = c_joint_traces(nat, "pendulum", TRACES, STEPS, 21, params=params)
        flagged = {label for label, m, v, ks in joint_differences(c, p) if max(abs(m), abs(v)) > SCORE or ks < KS_P}
        assert any(label.startswith(wrong) for label in flagged), (params, flagged)


@pytest.mark.parametrize("name", ["pendulum", "cvrange"])
def test_a_joint_trace_has_its_shape_and_its_bits(nat, name):
    from uxemu import joint_systems

    spec = joint_systems.spec(name)
    shape = nat.joint_shape(name)
    assert (shape["name"], shape["id"], shape["dim"]) == (name, spec.id, spec.dim)
    assert shape["defaults"] == list(spec.defaults) and nat.joint_shape(spec.id)["name"] == name
    a = nat.simulate_joint(name, 30, 5, traces=3)
    b = nat.simulate_joint(name, 30, 5, traces=2)
    for (xa, za), (xb, zb) in zip(a, b):  # trace i is the same whatever the count, bit for bit
        assert xa.shape == (30, spec.dim) and za.shape == (30, shape["dim_obs"])
        assert xa.tobytes() == xb.tobytes() and za.tobytes() == zb.tobytes()
    other = nat.simulate_joint(name, 30, 6)[0]
    assert not np.array_equal(other[0], a[0][0]) and not np.array_equal(a[1][0], a[0][0])


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda nat: nat.simulate_joint("lg", 5, 1), "no joint system 'lg'"),
        (lambda nat: nat.simulate_joint("pendulum", 5, 1, params=[1.0]), "takes 4 parameters"),
        (lambda nat: nat.simulate_joint("pendulum", 5, 1, prior=[("gaussian", 0.0, 1.0)]), "2 state components"),
        (lambda nat: nat.simulate_joint("pendulum", 0, 1), "steps must be"),
        (lambda nat: nat.simulate_joint("pendulum", 5, 2**64), "seed"),
    ],
)
def test_bad_joint_arguments_are_refused(nat, call, error):
    with pytest.raises(ValueError, match=error):
        call(nat)
    with pytest.raises(native.NativeDomainError, match="ux_abi_joint_simulate"):
        nat.simulate_joint("pendulum", 5, 1, params=[0.05, 9.81, -0.5, 0.3])
    with pytest.raises(native.NativeDomainError, match="ux_abi_joint_simulate"):
        nat.simulate_joint("pendulum", 5, 1, prior=[("gaussian", 0.0, 1.0), ("laplace", 0.0, 0.0)])
