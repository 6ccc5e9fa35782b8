"""The regime benchmark (uxbench.regimes): its scores against oracles, its data generators, a tiny cell end to
end through the C core and through the reference, and its results files."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from uxbench import regime_metrics as M
from uxbench import regimes as R
from uxbench import regimes_report, registry
from uxemu import kalman, native, simulate, systems

STEPS = 40


@pytest.fixture(scope="module")
def exact():
    tr = R.local_level_trace(0.1, STEPS, seed=0)
    return kalman.kalman_filter(tr.z, 1.0, 0.1, 1.0, float(tr.z[0]), 1.0)


def ok_status(n=STEPS):
    return np.zeros(n, dtype=np.int8)


def perturbed(exact):
    """The exact run with known faults: means 0.6 sd off at steps 3 and 7 (wrong), 0.4 sd off at 15 (not);
    variances ×2.5 at 10 and ×0.4 at 12 (wrong), ×1.9 at 16 and ×0.55 at 17 (not)."""
    sd = np.sqrt(exact.var)
    mean, var = exact.mean.copy(), exact.var.copy()
    mean[3] += 0.6 * sd[3]
    mean[7] -= 0.6 * sd[7]
    mean[15] += 0.4 * sd[15]
    var[10] *= 2.5
    var[12] *= 0.4
    var[16] *= 1.9
    var[17] *= 0.55
    return mean, var


# -- scores ----------------------------------------------------------------------------------------------
def test_an_exact_run_scores_zero(exact):
    s = M.score_run(exact.mean, exact.var, ok_status(), exact.log_likelihood, exact)
    assert (s.worst_sd, s.var_min, s.var_max, s.log_l_gap) == (0.0, 1.0, 1.0, 0.0)
    assert (s.wrong, s.silent, s.flagged, s.statuses, s.runs, s.steps) == (0, 0, 0, {}, 1, STEPS)


def test_wrong_steps_are_counted_exactly_where_they_were_made(exact):
    mean, var = perturbed(exact)
    wrong = M.wrong_steps(mean, var, exact.mean, exact.var)
    assert np.flatnonzero(wrong).tolist() == [3, 7, 10, 12]
    s = M.score_run(mean, var, ok_status(), exact.log_likelihood - 1.25, exact)
    assert (s.wrong, s.silent) == (4, 4)
    assert s.worst_sd == pytest.approx(0.6, rel=1e-12)
    assert (s.var_min, s.var_max) == pytest.approx((0.4, 2.5), rel=1e-12)
    assert s.log_l_gap == pytest.approx(-1.25, abs=1e-9)


def test_a_status_other_than_ok_makes_a_wrong_step_said_not_silent(exact):
    mean, var = perturbed(exact)
    status = ok_status()
    status[3] = 1  # FALLBACK on a wrong step
    status[10] = 9  # a status no filter has yet: still "said so"
    status[20] = 2  # a flagged step that is not wrong
    s = M.score_run(mean, var, status, exact.log_likelihood, exact)
    assert (s.wrong, s.silent, s.flagged) == (4, 2, 3)
    assert s.statuses == {"1": 1, "2": 1, "9": 1}


def test_a_nan_is_wrong_and_infinitely_bad(exact):
    mean, var = exact.mean.copy(), exact.var.copy()
    mean[5], var[6] = np.nan, np.nan
    s = M.score_run(mean, var, ok_status(), math.nan, exact)
    assert (s.wrong, s.silent) == (2, 2)
    assert s.worst_sd == math.inf and s.var_max == math.inf
    assert not M.within(s.as_dict(), M.BOUNDS[8])


def test_combining_runs_takes_the_worst_and_sums_the_counts():
    a = M.Score(1, 10, 0.2, 0.9, 1.1, -0.3, 2, 1, 1, {"1": 1})
    b = M.Score(1, 10, 0.1, 0.7, 1.3, +0.2, 3, 3, 2, {"1": 1, "4": 1})
    c = M.combine([a, b])
    assert c == M.Score(2, 20, 0.2, 0.7, 1.3, -0.3, 5, 4, 3, {"1": 2, "4": 1})


def test_bounds_are_the_issues_and_inclusive():
    b16, b8 = M.BOUNDS[16], M.BOUNDS[8]
    edge16 = dict(worst_sd=b16.mean_sd, var_min=b16.var_ratio[0], var_max=b16.var_ratio[1], log_l_gap=-b16.log_l_nats)
    assert M.within(edge16, b16)
    assert not M.within(dict(edge16, log_l_gap=0.51), b16)
    assert not M.within(dict(edge16, worst_sd=0.11), b16)
    assert M.within(dict(worst_sd=0.25, var_min=0.6, var_max=1.5, log_l_gap=40.0), b8)  # no log L bound at η = 8
    assert not M.within(dict(worst_sd=0.2, var_min=0.59, var_max=1.0, log_l_gap=0.0), b8)
    assert [M.bound_for(eta)[0] for eta in (4, 8, 16, 32, 64)] == [8, 8, 16, 16, 16]


# -- data ------------------------------------------------------------------------------------------------
def test_local_level_traces_share_their_draws_across_q():
    a, b = R.local_level_trace(0.01, 50, seed=2), R.local_level_trace(1.0, 50, seed=2)
    assert a.x[0] == 0.0
    np.testing.assert_allclose(a.z - a.x, b.z - b.x, rtol=0, atol=1e-12)  # the same observation noise
    np.testing.assert_allclose(np.diff(b.x), 100.0 * np.diff(a.x), rtol=1e-12)
    assert np.array_equal(R.local_level_trace(0.01, 50, seed=2).z, a.z)  # reproducible
    assert not np.array_equal(R.local_level_trace(0.01, 50, seed=3).z, a.z)


def test_the_level_shift_is_exactly_8r_from_the_half_on():
    z = R.local_level_trace(0.1, 200, seed=0).z
    d = R.level_shift(z) - z
    assert R.half(200) == 100
    assert np.all(d[:100] == 0.0) and np.allclose(d[100:], 8.0 * R.R, rtol=0, atol=1e-12)


def test_the_outlier_is_one_reading_1e4_r_off_at_the_half():
    z = R.local_level_trace(0.1, 200, seed=0).z
    d = R.outlier(z) - z
    assert np.flatnonzero(d).tolist() == [100]
    assert d[100] == pytest.approx(1e4 * R.R, rel=1e-12)


def test_the_stuck_run_repeats_the_reading_at_the_half_30_times():
    z = R.local_level_trace(0.1, 200, seed=0).z
    s = R.stuck(z)
    assert np.all(s[100:130] == z[100]) and s[130] != s[129]
    assert np.array_equal(s[:100], z[:100]) and np.array_equal(s[130:], z[130:])


def test_misspecified_cells_change_the_clean_trace_only():
    cell = dict(group="lg_misspecified", data="outlier", q=0.1, prior_sd=1.0, placement="offset")
    clean, bad = R.lg_trace(dict(cell, data="model"), 60, 1), R.lg_trace(cell, 60, 1)
    assert np.flatnonzero(bad.z != clean.z).tolist() == [30]


def test_priors_are_placed_against_the_first_reading():
    cell = dict(group="lg", data="model", q=0.1, prior_sd=100.0, placement="centred")
    assert R.lg_prior(cell, 1.5) == (1.5, 100.0)
    assert R.lg_prior(dict(cell, placement="offset"), 1.5) == (1.5 + 74.0, 100.0)


@pytest.mark.parametrize("system", R.NONLINEAR)
def test_the_noise_jump_triples_the_state_noise_from_the_half_on(system):
    steps, h = 40, R.half(40)
    model = systems.get(system)
    cell = dict(group="nonlinear", system=system, data="noise_jump")
    calm, jumped = R.nonlinear_trace(dict(cell, data="model"), steps, 0), R.nonlinear_trace(cell, steps, 0)
    assert np.array_equal(calm.x[:h], jumped.x[:h])
    k = np.arange(1, steps)

    def noise(x):  # the state noise drawn at each step: x_k − f(x_{k−1}, 0)
        return x[1:] - model.transition(x[:-1], 0.0, k, 0.0)

    np.testing.assert_allclose(noise(jumped.x)[h - 1 :], R.NOISE_JUMP * noise(calm.x)[h - 1 :], rtol=1e-9, atol=1e-9)
    # without a jump the generator is uxemu.simulate itself, draw for draw
    again = R.noise_jump_trace(model, model, steps, R.trace_rng(systems.spec(system).id, 0))
    assert np.array_equal(again.z, calm.z) and np.array_equal(
        simulate(model, steps, R.trace_rng(systems.spec(system).id, 0)).z, calm.z
    )


def test_the_grid_covers_the_issue():
    cells = R.cells()
    assert len([c for c in cells if c["group"] == "lg"]) == 30
    assert {c["data"] for c in cells if c["group"] == "lg_misspecified"} == set(R.MISSPECIFICATIONS)
    assert len({R.cell_label(c) for c in cells}) == len(cells)


# -- end to end --------------------------------------------------------------------------------------------
TINY = dict(seeds=1, steps=16, modes=R.MODES, etas=(4, 8), grid_check=False)
TINY_CELLS = [
    dict(group="lg", data="model", q=0.1, prior_sd=100.0, placement="offset"),
    dict(group="lg_misspecified", data="outlier", q=0.1, prior_sd=1.0, placement="offset"),
    dict(group="nonlinear", system="gss", data="noise_jump"),
    dict(group="nonlinear", system="sv", data="outlier"),
]


@pytest.mark.parametrize("cell", TINY_CELLS, ids=R.cell_label)
def test_the_c_core_and_the_reference_give_the_same_numbers(cell):
    if not native.available():
        pytest.skip(f"{native.library_path()} is not built (run `make native`)")
    got = {which: R.run_task(dict(TINY, cell=cell, engine=which)) for which in ("native", "reference")}
    # bit for bit, so the scores are equal (with numpy's exp and log on libm, as scripts/run-pytest.sh sets)
    assert got["native"]["records"] == got["reference"]["records"]
    assert len(got["native"]["records"]) == len(R.MODES) * len(TINY["etas"])


def test_the_results_files_hold_one_record_per_cell_mode_and_eta(tmp_path):
    cells = [dict(group="lg", data="model", q=0.1, prior_sd=1.0, placement="offset"), TINY_CELLS[1]]
    size = dict(TINY, name="tiny", modes=("paper",), etas=(8, 16))
    results = [R.run_task(dict(size, cell=c, engine=R.engine())) for c in cells]
    verdict = regimes_report.write(results, size, tmp_path, {"commit": "abc1234", "seconds": 1.0})
    doc = json.loads((tmp_path / "regimes.json").read_text())
    assert len(doc["records"]) == 2 * 1 * 2 and len(doc["cells"]) == 2 and doc["commit"] == "abc1234"
    misspecified = {label for label, c in doc["cells"].items() if c["group"] == "lg_misspecified"}
    assert {r["within_bound"] is None for r in doc["records"] if r["cell"] in misspecified} == {True}
    assert {r["within_bound"] is None for r in doc["records"] if r["cell"] not in misspecified} == {False}
    text = (tmp_path / "regimes.md").read_text()
    assert "## Summary per mode × η" in text and "(clean " in text
    assert list(verdict) == ["paper: issue 36 bounds on all 1 well-specified lg cells"]


def test_the_full_run_writes_beside_the_other_results_and_quick_in_its_folder(tmp_path):
    root = tmp_path / "results"
    assert registry.results_folder("regimes", "full", root) == root.resolve()
    assert registry.results_folder("regimes", "quick", root) == root / "quick" / "regimes"
    assert registry.results_folder("filtering", "full", root) == root / "full" / "filtering"


def test_the_command_line_takes_a_benchmark_by_name(monkeypatch, tmp_path):
    from uxbench import __main__ as cli

    seen = []
    monkeypatch.setattr(
        registry,
        "load",
        lambda name: seen.append(name)
        or SimpleNamespace(SIZES={"quick": {}}, tasks=lambda size: [], run_task=None, report=lambda *a: None),
    )
    assert cli.main(["regimes", "--quick", "--out", str(tmp_path)]) == 0
    assert seen == ["regimes"]
    with pytest.raises(SystemExit):
        cli.main(["nonesuch"])


# -- the open edge (docs/semantics.md, "Filter") ---------------------------------------------------------------
# gss on its own data, seed 0: at step 180 (z = 6.44, modes at ±11.3) the exact posterior keeps 1.5 % of its mass
# at +11.3, beyond the η² points' reach; without the open-edge test refined η = 16 kept 0.45 % there, its
# variance 0.32× the exact one with status OK (measured at 8f65697).
EDGE_CELL = dict(group="nonlinear", system="gss", data="model")
EDGE_STEP = 180


@pytest.fixture(scope="module")
def edge_problem():
    return R.Problem(EDGE_CELL, 200, 0)  # the trace's draws depend on its length


def test_an_open_edge_takes_the_quadrature_and_keeps_the_far_mode(edge_problem, monkeypatch):
    from uxemu import filter as F

    steps, opened = [], set()
    step, edge_open = F.BayesLaplaceFilter.step, F.BayesLaplaceFilter._edge_open

    def step_spy(self, k, *args, **kwargs):
        steps.append(k)
        return step(self, k, *args, **kwargs)

    def edge_spy(self, *args):
        if edge_open(self, *args):
            opened.add(steps[-1])
            return True
        return False

    monkeypatch.setattr(F.BayesLaplaceFilter, "step", step_spy)
    monkeypatch.setattr(F.BayesLaplaceFilter, "_edge_open", edge_spy)
    mean, var, status, _ = edge_problem.run("reference", 16, "refined")
    exact = edge_problem.exact
    assert EDGE_STEP in opened and status[EDGE_STEP] == 0
    # a rare path: 7 of the 200 updates here (142 and 180 by a rising edge, the rest by the probes past it)
    assert len(opened) <= 10
    assert 0.8 <= var[EDGE_STEP] / exact.var[EDGE_STEP] <= 1.25
    assert M.score_run(mean, var, status, 0.0, exact).silent == 0
    monkeypatch.setattr(F, "EDGE_SHARE", math.inf)  # the test off: the step is silently wrong again
    mean, var, status, _ = edge_problem.run("reference", 16, "refined")
    assert var[EDGE_STEP] / exact.var[EDGE_STEP] < 0.5 and status[EDGE_STEP] == 0


def test_the_c_core_opens_the_same_edge_bit_for_bit(edge_problem):
    if not native.available():
        pytest.skip(f"{native.library_path()} is not built (run `make native`)")
    for eta in (4, 16, 32):
        got = [edge_problem.run(which, eta, "refined") for which in ("native", "reference")]
        for a, b in zip(got[0][:3], got[1][:3]):
            np.testing.assert_array_equal(a, b)
        assert got[0][3] == got[1][3]
