"""The propagation benchmark's own code: exact laws, W1, the C Monte Carlo, the iso-quality search, tables."""

import math
import re

import numpy as np
import pytest
from scipy import special, stats

from uxbench import mc_native, paper_propagation, propagation, propagation_exact, propagation_models
from uxemu import lift
from uxemu.laws import Laplace, Normal, Uniform
from uxemu.value import Value


@pytest.fixture(scope="module")
def mc():
    if not mc_native.library_path().exists():
        pytest.skip(f"{mc_native.library_path()} is not built (run `make bench-lib`)")
    return mc_native.load()


def normal_table(mu=0.0, sigma=1.0):
    def cond(y, u):
        z = (y - mu - u) / sigma
        return special.ndtr(z), np.exp(-0.5 * z * z) / (sigma * math.sqrt(2 * math.pi))

    return propagation_exact.tabulate(cond, [np.zeros(1)], np.ones(1))


# -- W1 against the exact law -----------------------------------------------------------------------
# DESIGN.md §3 and benchmarks/README.md: 0.146 / 0.077 / 0.040 (atoms), 0.0211 / 0.0079 / 0.0029 (rec.)
@pytest.mark.parametrize("eta, atoms, rec", [(8, 0.146, 0.0211), (16, 0.077, 0.0079), (32, 0.040, 0.0029)])
def test_quantized_gaussian_matches_the_design_yardstick(mc, eta, atoms, rec):
    table = normal_table()
    v = Normal(0.0, 1.0).quantize(eta)
    edges, heights = v.bins()
    assert mc.w1_steps(v.x, table, v.w) == pytest.approx(atoms, abs=6e-4)
    assert propagation_exact.w1_reconstructed(edges, heights, table) == pytest.approx(rec, abs=6e-5)


@pytest.mark.parametrize("c", [0.0, 0.7, -2.5])
def test_w1_of_a_point_mass_is_the_mean_absolute_deviation(mc, c):
    # W1(δ_c, N(0, 1)) = E|Z − c| = 2φ(c) + c(2Φ(c) − 1)
    exact = 2 * math.exp(-0.5 * c * c) / math.sqrt(2 * math.pi) + c * (2 * special.ndtr(c) - 1)
    assert mc.w1_steps([c], normal_table()) == pytest.approx(exact, rel=1e-9)


def test_w1_of_a_sample_agrees_with_scipy_against_a_far_larger_sample(mc):
    table = normal_table(1.0, 2.0)
    x = np.sort(np.random.default_rng(1).normal(1.0, 2.0, 300))
    truth = np.random.default_rng(2).normal(1.0, 2.0, 2_000_000)
    assert mc.w1_steps(x, table) == pytest.approx(stats.wasserstein_distance(x, truth), abs=5e-3)


def test_binned_table_gives_the_metrics_w1_of_a_reconstruction(mc):
    from uxbench import metrics

    v = Normal(0.3, 2.0).quantize(16)
    sample = np.sort(np.random.default_rng(3).normal(0.0, 2.5, 20_000))
    table = propagation_exact.binned_table(*v.bins())
    assert mc.w1_steps(sample, table) == pytest.approx(metrics.w1_reconstructed(v, sample), rel=1e-9)


def test_table_reproduces_a_known_law():
    # SV transition with Gaussian noise: φX + H is N(φλ, φ²s² + σ²) exactly.
    p = mc_native.Problem(
        mc_native.SV_TRANSITION, (0.98, 0.0, 0.2, 1.0), (("gaussian", 0.5, 1.3), ("gaussian", 0.0, 0.2))
    )
    table = propagation_models.MODELS["sv_transition"].exact(p)
    sd = math.hypot(0.98 * 1.3, 0.2)
    t = np.linspace(-6, 6, 1001)
    assert np.max(np.abs(propagation_exact.cdf(table, t) - special.ndtr((t - 0.49) / sd))) < 1e-10
    assert table.mean == pytest.approx(0.49, abs=1e-9)


# -- the C side against independent numpy code ---------------------------------------------------------
def numpy_model(key, p, inputs):
    """The six model functions written again in numpy (the C ones are in firmware/src/models)."""
    if key == "sv_transition":
        x, h = inputs
        return p.params[0] * x + p.params[1] * (1 - p.params[0]) + h
    if key == "sv_observation":
        x, e = inputs
        return e * np.exp(x / 2)
    if key == "gss_transition":
        x, u = inputs
        return x / 2 + 25 * x / (1 + x * x) + 8 * math.cos(1.2 * p.k) + u
    if key == "gss_observation":
        x, v = inputs
        return x * x / 20 + v
    if key == "cubic_transition":
        x, u = inputs
        d = p.params[2] - x
        return x + p.params[0] * d - p.params[0] * p.params[1] * d**3 + u
    x, m, h = inputs
    return np.exp(-x) * (1 + m) + h


def numpy_draw(law, rng, n):
    kind, a, b = law
    if kind == "gaussian":
        return rng.normal(a, b, n)
    if kind == "laplace":
        return rng.laplace(a, b, n)
    return rng.uniform(a, b, n)


CASES = [
    ("sv_transition", 3),
    ("sv_observation", 35),
    ("gss_transition", 14),
    ("gss_observation", 25),
    ("cubic_transition", 46),
    ("bl_observation", 31),
]


@pytest.mark.parametrize("key, index", CASES)
def test_c_monte_carlo_agrees_with_numpy_sampling_of_the_same_model(mc, key, index):
    p = propagation_models.MODELS[key].configs[index].problem
    c_draws = mc.mc(p, seed=11, n=200_000)
    rng = np.random.default_rng(12)
    np_draws = numpy_model(key, p, [numpy_draw(law, rng, 200_000) for law in p.inputs])
    assert stats.ks_2samp(c_draws, np_draws).pvalue > 1e-3


@pytest.mark.parametrize("key, index", CASES)
def test_exact_law_agrees_with_the_c_monte_carlo(mc, key, index):
    model = propagation_models.MODELS[key]
    p = model.configs[index].problem
    table = model.exact(p)
    draws = mc.mc(p, seed=5, n=200_000)
    assert stats.kstest(draws, lambda t: propagation_exact.cdf(table, t)).pvalue > 1e-3
    # and W1 of the sample is of the size Monte Carlo noise has, C^-1/2
    assert mc.w1_steps(np.sort(draws), table) < 5 * draws.std() / math.sqrt(draws.size)


@pytest.mark.parametrize("key, index", CASES)
def test_ux_propagation_is_the_lift_of_the_model_function(mc, key, index):
    p = propagation_models.MODELS[key].configs[index].problem
    x, w = mc.ux(p, 8)
    quantized = [reference_law(law).quantize(8) for law in p.inputs]
    ref = lift(lambda *a: numpy_model(key, p, a), *quantized, eta=8)
    np.testing.assert_allclose(x, ref.x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, ref.w, rtol=1e-12)


@pytest.mark.parametrize("key, index", CASES)
def test_row_lifted_propagation_is_the_lift_at_every_point_bit_for_bit(mc, key, index):
    # Five of the six functions add their last input last, SV's observation multiplies it; each is lifted
    # once per row of the other inputs, and the result must be the lift at every point, bit for bit.
    p = propagation_models.MODELS[key].configs[index].problem
    assert mc.lift_form(p) == ("multiplicative" if key == "sv_observation" else "additive")
    for eta in (2, 8, 16):
        x, w = mc.ux(p, eta)
        xe, we = mc.ux(p, eta, every_point=True)
        np.testing.assert_array_equal(x, xe)
        np.testing.assert_array_equal(w, we)


@pytest.mark.parametrize("index", [0, 31, 62])
def test_chained_propagation_is_two_lifts_each_reduced(mc, index):
    """The exponential observation's chained alternative: exp(−x)(1 + m) lifted from (x, m) and reduced to
    η, then + h lifted; the reference's two lifts give the same atoms. At η = 16 it is close to the full
    outer product (its reconstructed W1 within 2× of the outer product's) from 2η² points instead of η³."""
    p = propagation_models.MODELS["bl_observation"].configs[index].problem
    x_law, m_law, h_law = (reference_law(law).quantize(8) for law in p.inputs)
    g = lift(lambda x, m: np.exp(-x) * (1 + m), x_law, m_law, eta=8)
    ref = lift(lambda a, h: a + h, g, h_law, eta=8)
    x, w = mc.ux(p, 8, chained=True)
    np.testing.assert_allclose(x, ref.x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, ref.w, rtol=1e-12)
    table = propagation_models.MODELS["bl_observation"].exact(p)
    w1 = {
        c: propagation_exact.w1_reconstructed(*Value(*mc.ux(p, 16, chained=c), 16).bins(), table) for c in (False, True)
    }
    assert w1[True] < 2 * w1[False]


def test_only_the_three_input_model_has_a_chain(mc):
    p = propagation_models.MODELS["gss_transition"].configs[0].problem
    with pytest.raises(RuntimeError, match="failed with status"):
        mc.ux(p, 8, chained=True)


def reference_law(law):
    kind, a, b = law
    return {"gaussian": Normal, "laplace": Laplace, "uniform": Uniform}[kind](a, b)


def test_mc_stream_prefixes_do_not_depend_on_the_count(mc):
    p = propagation_models.MODELS["cubic_transition"].configs[7].problem
    np.testing.assert_array_equal(mc.mc(p, 9, 1000), mc.mc(p, 9, 5000)[:1000])


# -- the iso-quality search -----------------------------------------------------------------------------
def test_iso_quality_count_brackets_the_target(mc):
    model = propagation_models.MODELS["sv_transition"]
    p = model.configs[3].problem
    table = model.exact(p)
    counts = propagation.counts_grid(8, 1 << 16)
    target = 0.02
    curve = mc.w1_curve(p, 77, table, counts, stop=target)
    n, censored = propagation.iso_count(curve, counts, target)
    assert not censored and len(curve) == np.searchsorted(counts, n) + 1
    prev = counts[np.searchsorted(counts, n) - 1]
    # recomputed from the stream itself, not from the curve's incremental sort
    w1_at = mc.w1_steps(np.sort(mc.mc(p, 77, n)), table)
    w1_before = mc.w1_steps(np.sort(mc.mc(p, 77, int(prev))), table)
    assert w1_at <= target < w1_before
    assert w1_at == pytest.approx(curve[-1], rel=1e-12)


def test_iso_quality_search_reports_a_target_never_reached(mc):
    model = propagation_models.MODELS["gss_observation"]
    p = model.configs[4].problem
    table = model.exact(p)
    counts = propagation.counts_grid(4, 64)
    curve = mc.w1_curve(p, 1, table, counts, stop=1e-6)
    assert len(curve) == counts.size
    assert propagation.iso_count(curve, counts, 1e-6) == (64, True)


# -- the benchmark end to end ---------------------------------------------------------------------------
def test_configuration_spaces_are_the_papers():
    assert {k: len(m.configs) for k, m in propagation_models.MODELS.items()} == paper_propagation.CONFIGURATIONS
    assert sum(paper_propagation.CONFIGURATIONS.values()) == 273
    assert len(propagation.tasks(propagation.SIZES["full"])) == 273


def test_tables_are_produced(mc, tmp_path):
    size = dict(propagation.SIZES["quick"], picks=1, seeds=2, cap=1 << 12, repeats=3, ground_truth=10_000)
    tasks = [t for t in propagation.tasks(size) if t["model"] in ("sv_observation", "gss_transition")]
    results = [propagation.run_task(t) for t in tasks]
    propagation.report(results, size, tmp_path)
    md = (tmp_path / "propagation.md").read_text()
    for key in ("sv_observation", "gss_transition"):
        assert propagation_models.MODELS[key].title in md
    assert "paper UxHw 8 (FPGA) | 0.074508 | 8985" in md  # the paper's row beside ours
    assert "ux η=32, reconstructed" in md and "ux η=32, atoms" in md
    # a target cell per model and η the paper has a row for; the others have ours beside empty paper cells
    assert md.count("| yes |") + md.count("| no |") == 2 * len(paper_propagation.ETAS)
    for eta in sorted(set(propagation.ETAS) - set(paper_propagation.ETAS)):
        assert f"ux η={eta}, reconstructed" in md and f"paper UxHw {eta} " not in md
        assert re.search(rf"\| {eta} \| 1 \| — \| ×[0-9.]+ \| ×[0-9.]+ \| — \| .* \| — \| .* \| — \|", md)
    assert (tmp_path / "propagation_speedup.png").stat().st_size > 0
    assert (tmp_path / "propagation_summary.csv").read_text().count("\n") == 2 * len(propagation.ETAS) * 2 + 1
    records = [dict(r[f"eta{eta}"], mc_ns=r["mc_ns"]) for r in results for eta in propagation.ETAS]
    for r in records:
        assert r["w1_rec"] < r["w1_atoms"] and r["ux_ns"] > 0 and r["mc_ns"] > 0
        assert r["iso_rec_count"] >= r["iso_atoms_count"]
        assert r["iso_rec_speedup"] == pytest.approx(r["iso_rec_count"] * r["mc_ns"] / r["ux_ns"])

    # A run made when ETAS held only the paper's η renders as it ran.
    old = [
        {k: v for k, v in r.items() if not (k.startswith("eta") and int(k[3:]) not in paper_propagation.ETAS)}
        for r in results
    ]
    propagation.report(old, size, tmp_path / "old")
    md = (tmp_path / "old" / "propagation.md").read_text()
    assert md.count("| yes |") + md.count("| no |") == 2 * len(paper_propagation.ETAS)
    assert "ux η=8, reconstructed" in md and "ux η=2," not in md and "| — |" not in md.split("## ")[1]
