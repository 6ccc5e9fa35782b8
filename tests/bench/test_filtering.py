"""The filtering benchmark (uxbench.filtering) on tiny sizes: tables, metrics, determinism, outside check."""

import csv
import math

import numpy as np
import pytest

import uxemu as ux
from uxbench import filtering, filtering_report, metrics, paper_filtering, particles_check, runner
from uxbench.baselines import grid_filter
from uxbench.filtering_report import Row


@pytest.fixture(scope="module")
def size():
    return filtering.tiny()


@pytest.fixture(scope="module")
def results(benchlib, size):
    return runner.execute(filtering.tasks(size), filtering.run_task, workers=1)


# -- seeds, traces, tasks ------------------------------------------------------------------------------
def test_traces_are_the_simulate_many_set(size):
    model = ux.systems.get("gss")
    ref = ux.simulate_many(model, size.traces, size.T, filtering.TRACE_SEED)
    for i in range(size.traces):
        tr = filtering.trace_for("gss", i, size)
        assert np.array_equal(tr.z, ref[i].z) and np.array_equal(tr.x, ref[i].x)


def test_seeds_are_fixed_and_distinct():
    seeds = {filtering.pf_seed("sv", t, n, r) for t in range(3) for n in (10, 20) for r in range(4)}
    assert len(seeds) == 24
    assert filtering.pf_seed("sv", 1, 10, 2) == filtering.pf_seed("sv", 1, 10, 2)
    assert filtering.pf_seed("sv", 1, 10, 2) != filtering.pf_seed("gss", 1, 10, 2)


def test_tasks_split_per_system_and_trace(size):
    ts = filtering.tasks(filtering.tiny(outside=True, outside_traces=2, outside_chunk=1))
    assert ts[0]["kind"] == "timing"
    acc = [(t["system"], t["trace"]) for t in ts if t["kind"] == "accuracy"]
    assert sorted(acc) == sorted((s, i) for s in filtering.SYSTEMS for i in range(size.traces))
    assert sum(t["kind"] == "outside" for t in ts) == 3 * 2


def test_a_skipped_configuration_is_not_run():
    size = filtering.tiny(etas=(64,), skipped=(filtering.SLOW_CUBIC_SAMPLER,))
    assert (64, "refined", "sampler") not in set(filtering.ux_configs("cubic", size))
    assert (64, "paper", "sampler") in set(filtering.ux_configs("cubic", size))
    assert (64, "refined", "sampler") in set(filtering.ux_configs("sv", size))
    assert (64, "refined", "sampler") in set(filtering.ux_configs("cubic", filtering.tiny(etas=(64,))))


def test_mixture_mode_runs_with_the_kernel_likelihood_only():
    configs = set(filtering.ux_configs("gss", filtering.tiny(etas=(8,))))
    assert (8, "mixture", "kernel") in configs and (8, "mixture", "sampler") not in configs
    assert {(8, m, lik) for m in ("refined", "paper") for lik in ("kernel", "sampler")} <= configs


def test_the_full_size_states_what_it_leaves_out():
    full = filtering.SIZES["full"]
    assert full.traces == 50 and full.T == 100 and full.runs_for("sv") == full.runs_for("gss") == 100
    # cubic's PF runs are the one count below the paper's, and the results say so
    assert full.runs_for("cubic") < 100 and any(n.startswith("C PF on cubic") for n in full.notes)
    # the tuned PF is cheap enough for the paper's count everywhere
    assert all(full.fast_runs_for(s) == 100 for s in filtering.SYSTEMS) and full.plain_pf
    assert filtering.tiny().fast_runs_for("sv") == filtering.tiny().runs_for("sv")  # () means as pf_runs
    assert full.skipped == filtering.SIZES["quick"].skipped == (filtering.SLOW_CUBIC_SAMPLER,)


# -- metrics on known answers ----------------------------------------------------------------------------
def test_scores_clamp_and_count_the_floor():
    s = filtering._scores([-1.0, -math.inf, -3.0], [0.5, 1.5])
    assert s["nll_sum"] == pytest.approx(1.0 + 20.0 + 3.0) and s["floor_hits"] == 1 and s["steps"] == 3
    assert s["crps_sum"] == 2.0 and s["crps_steps"] == 2


def test_gaussian_belief_scores_on_known_answers():
    """N(0, 1) at its mean: log density −½log 2π, CRPS 2φ(0) − 1/√π = (√2 − 1)/√π; a point mass: |y − μ|."""
    s = filtering._score_gaussian([0.0, 1.0], [1.0, 4.0], [0.0, 1.0])
    assert s["nll_sum"] == pytest.approx(0.5 * math.log(2 * math.pi) + 0.5 * math.log(2 * math.pi * 4.0), rel=1e-14)
    assert metrics.crps_gaussian(0.0, 1.0, 0.0) == pytest.approx((math.sqrt(2) - 1) / math.sqrt(math.pi), rel=1e-14)
    assert s["crps_sum"] == pytest.approx(3 * (math.sqrt(2) - 1) / math.sqrt(math.pi), rel=1e-14)  # σ = 2 scales it
    assert metrics.crps_gaussian(1.0, 0.0, 3.5) == 2.5 and metrics.log_pdf_gaussian(1.0, 0.0, 3.5) == -math.inf
    far = filtering._score_gaussian([0.0], [1e-6], [1.0])
    assert far["floor_hits"] == 1 and far["nll_sum"] == 20.0


def test_log_y2_runs_only_where_the_observation_is_scale_times_noise():
    assert filtering.kf_methods("sv") == ("ekf", "ukf", "ekf_logsq")
    assert filtering.kf_methods("gss") == filtering.kf_methods("cubic") == ("ekf", "ukf")


def test_kalman_sentences_say_ahead_or_behind_from_the_numbers():
    rows = {
        ("ux", 8, "refined", "kernel"): _row(("ux", 8, "refined", "kernel"), [[1.0]], 10.0, nll_sum=1.0, steps=1),
        ("ux", 2, "refined", "kernel"): _row(("ux", 2, "refined", "kernel"), [[3.0]], 4.0, nll_sum=3.0, steps=1),
        ("kf", "ekf"): _row(("kf", "ekf"), [[2.0]], 5.0, nll_sum=2.0, steps=1),
    }
    table, (text,) = filtering_report.kalman_comparison("sys", rows)
    assert table[0][6] == "1/2" and table[0][7] == "ux η=8 refined kernel" and table[0][10] == "not dominated"
    assert "ux is ahead in accuracy in 1 of 2 configurations (RMSE down to 1, -50.00 %; lower NLL in 1)" in text
    assert "behind in latency" in text and "2× the baseline's" in text and "no ux configuration is as fast" not in text
    _, (text,) = filtering_report.kalman_comparison("sys", rows, empty_ns=8.0, T=4)  # 2 ns of each step is the call
    assert "(2× the baseline's; 2.67× net of the 0.002 µs per step of the call itself)" in text
    rows[("ux", 8, "refined", "kernel")].latency_ns = 4.5
    _, (text,) = filtering_report.kalman_comparison("sys", rows)
    assert "ux η=8 refined kernel is also at least as fast" in text and "dominated" in text
    rows[("kf", "ekf")] = _row(("kf", "ekf"), [[0.5]], 5.0)
    _, (text,) = filtering_report.kalman_comparison("sys", rows)
    assert "ux is behind in accuracy" in text and "the best, ux η=8 refined kernel, has 1)" in text


def test_particle_set_scores_on_a_two_atom_set():
    """Atoms 0 and 2 with mass ½, truth 1: CRPS = ½·1 + ½·1 − ½·(2·¼·2) = ½; the KDE (Scott's rule,
    σ_w² = Σw(x−μ)²/(1 − Σw²) = 2, n_eff = 2) puts φ(1/h)/h at 1 from both atoms."""
    s = filtering._score_sets(np.array([[0.0, 2.0]]), np.array([[0.5, 0.5]]), np.array([1.0]))
    h = math.sqrt(2.0) * 2 ** (-0.2)
    assert s["crps_sum"] == pytest.approx(0.5, abs=1e-15)
    assert s["nll_sum"] == pytest.approx(0.5 / h**2 + math.log(h) + 0.5 * math.log(2 * math.pi), rel=1e-12)


def _row(key, rmse_runs, latency=None, **sums):
    r = Row("sys", key, latency_ns=latency)
    for i, runs in enumerate(rmse_runs):
        r.traces[i] = {"rmse": runs, **sums}
    return r


def test_row_aggregation():
    r = _row(("pf", 10), [[1.0, 3.0], [2.0, 2.0]], nll_sum=3.0, steps=2, crps_sum=1.0, crps_steps=4)
    assert r.rmse() == 2.0
    assert r.rmse_std() == pytest.approx(math.sqrt(2.0) / 2)
    assert r.max_trace_std() == pytest.approx(math.sqrt(2.0))
    assert r.nll() == 1.5 and r.crps() == 0.25
    assert r.rmse(only={1}) == 2.0 and r.rmse_std(only={1}) == 0.0
    assert _row(("grid", 5), [[1.0]]).rmse_std() is None
    partly = _row(("ux", 8, "refined", "kernel"), [[1.0, 1.0], [2.0]])  # repeated on the first trace only
    assert partly.rmse_std() == 0.0 and partly.max_trace_std() == 0.0
    assert partly.rmse() == 1.5  # each trace weighs the same, however often it ran
    assert partly.runs_text() == "2 (1 traces), 1"


def test_ux_repeats_only_on_the_first_traces(benchlib):
    size = filtering.tiny(systems=("sv",), etas=(8,), particles=(10,), ux_repeat_traces=1)
    for trace, runs in ((0, 2), (1, 1)):
        res = filtering.run_task({"kind": "accuracy", "size": size, "system": "sv", "trace": trace})
        assert all(len(r["rmse"]) == runs for r in res["rows"] if r["key"][0] == "ux")


def _table(ux64=1.004, pf_fast=(20.0, 1.3), ux_std=(1.0, 1.0)):
    rows = {("grid", 1501): _row(("grid", 1501), [[1.0]])}
    for key, runs, lat in [
        (("ux", 8, "refined", "kernel"), [list(ux_std)], 10.0),
        (("ux", 64, "refined", "kernel"), [[ux64, ux64]], 1000.0),
        (("pf", 10), [[pf_fast[1]] * 2], pf_fast[0]),
        (("pf", 1000), [[1.2, 1.4]], 5000.0),
    ]:
        rows[key] = _row(key, runs, lat)
    return {"sys": rows}


def test_targets_met_on_a_table_built_to_meet_them():
    text, verdict = filtering_report.targets(_table())
    assert verdict == {
        "eta64_within_1pct_of_grid": True,
        "ux_pareto_dominates_pf": True,
        "ux_rmse_std_exactly_zero": True,
    }
    assert text.count("| yes |") == 3 and "| sys | refined kernel | +0.40 % |" in text
    assert "| sys | PF 10 (C, plain) | 1.3 | 0.02 µs | ux η=8 refined kernel | 1 | 0.01 µs |" in text
    assert "the plain C PF (benchmarks/c/src/pf.c)" in text  # a run without the tuned PF says which it compared


def test_targets_compare_with_the_tuned_pf_and_state_the_plain_one_beside():
    table = _table()
    rows = table["sys"]
    for key, runs, lat in [(("pf_fast", 10), [[1.3, 1.3], [1.5, 1.3]], 5.0), (("pf_fast", 1000), [[1.2, 1.4]], 20.0)]:
        rows[key] = _row(key, runs, lat)
    rows[("pf", 10)].traces[1] = {"rmse": [1.3, 1.3]}
    text, verdict = filtering_report.targets(table)
    assert filtering_report.primary_pf(rows) == "pf_fast"
    assert not verdict["ux_pareto_dominates_pf"]  # tuned PF 10 (5 ns) is faster than every ux row
    assert "| tuned C PF points Pareto-dominated by a ux point (RMSE, native latency) | 1/2 | no |" in text
    assert "| for comparison, not a target: plain C PF (pf.c) points Pareto-dominated | 2/2 | — |" in text
    assert "the tuned C PF (benchmarks/c/src/pf_fast.c)" in text
    assert "| sys | PF 10 (C, tuned) | 1.35 | 0.005 µs | not dominated |" in text
    # why not: the cheapest ux row as accurate (1.0 at 10 ns, twice the PF's 5 ns), none as fast
    assert "| not dominated | — | — | as accurate: ux η=8 refined kernel at 2× its latency |" in text
    assert "| sys | PF 10 (C, plain) | 1.3 |" in text
    # the ratio table: per-trace differences 0 and +0.1 → +0.05 ± 0.05; plain / tuned = 20 / 5
    assert "| sys | 10 | 1.3 | 1.35 | +0.0500 ± 0.0500 | +1.0 | 2 / 2 | 0.02 µs | 0.005 µs | 4 |" in text
    assert "| sys | 1000 | 1.3 | 1.3 | +0.0000 ± nan | — | 2 / 2 | 5 µs | 0.02 µs | 250 |" in text


def test_the_two_pfs_are_timed_in_alternating_calls():
    seen = []

    class Run:
        def __init__(self, ns):
            self.cpu_ns, self.elapsed_ns = ns, ns

    calls = {k: (lambda tr, k=k: seen.append(k) or Run(10 * len(k) * len(tr))) for k in ("a", "bb")}
    t = filtering._timed_alternating(calls, [(np.zeros(4), 3), (np.zeros(2), 2)])
    assert seen == ["a", "bb", "bb", "a", "a", "bb", "bb", "a", "a", "bb"]
    assert t["a"] == {"ns_per_step": 10.0, "wall_ns_per_step": 10.0, "samples": 5}
    assert t["bb"]["ns_per_step"] == 20.0


def test_each_target_can_fail():
    assert not filtering_report.targets(_table(ux64=1.02))[1]["eta64_within_1pct_of_grid"]
    assert not filtering_report.targets(_table(pf_fast=(5.0, 1.3)))[1]["ux_pareto_dominates_pf"]
    _, verdict = filtering_report.targets(_table(ux_std=(1.0, 1.0 + 1e-15)))
    assert not verdict["ux_rmse_std_exactly_zero"]


def test_the_shortfall_names_the_nearest_ux_points_on_each_axis():
    pf = _row(("pf_fast", 50), [[1.0]], 10.0)
    ux = [
        _row(("ux", eta, "refined", "kernel"), [[e]], t)
        for eta, e, t in ((16, 0.9, 30.0), (32, 1.0, 25.0), (4, 1.2, 8.0))
    ]
    assert filtering_report.shortfall(pf, ux) == (
        "as accurate: ux η=32 refined kernel at 2.5× its latency; as fast: ux η=4 refined kernel, RMSE +20.0 %"
    )
    assert filtering_report.shortfall(pf, []) == "—"


def test_domination_needs_both_axes():
    a, b = _row(("ux", 8), [[1.0]], 10.0), _row(("pf", 10), [[1.0]], 10.0)
    assert filtering_report.dominated_by(b, [a]) is None  # a tie is not domination
    c = _row(("ux", 16), [[0.9]], 20.0)
    assert filtering_report.dominated_by(b, [c]) is None  # more accurate but slower
    d = _row(("ux", 32), [[0.9]], 9.0)
    assert filtering_report.dominated_by(b, [a, c, d]) is d


# -- the tiny benchmark end to end --------------------------------------------------------------------------
def test_tables_are_produced(results, size, tmp_path):
    verdict = filtering.report(results, size, tmp_path)
    assert set(verdict) == {"eta64_within_1pct_of_grid", "ux_pareto_dominates_pf", "ux_rmse_std_exactly_zero"}
    for system in filtering.SYSTEMS:
        text = (tmp_path / f"{system}.md").read_text()
        assert "## Beside the paper" in text and "## Reading" not in text
        first = paper_filtering.rows(system)[0]
        assert f"{first['rmse']:.6g}" in text  # the paper's row is printed beside ours
        assert "ux η=8 refined kernel" in text and "PF 100 (C, tuned)" in text and "grid 301 points" in text
        assert "PF 100 (C, plain)" in text and "## The tuned C PF against the plain one" in text
        assert "C PF rows: the tuned PF (pf_fast.c)" in text  # the tables name which PF they timed
        # η the paper never ran: our numbers, the paper's columns empty
        for eta in (2, 4):
            assert f"ux η={eta} paper sampler" in text
            assert f"| UxHw {eta} (not in the paper) | — | " in text
        assert (tmp_path / f"{system}_pareto.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with (tmp_path / "filtering_summary.csv").open() as fh:
        records = list(csv.DictReader(fh))
    methods = {(r["system"], r["method"]) for r in records}
    kalman = 2 * 3 + 1  # EKF and UKF on every system, the log y² EKF on SV only
    ux_configs = 5  # refined and paper with both likelihoods, mixture with the kernel one
    pfs = 2 * len(size.particles)  # the tuned and the plain C PF
    assert len(methods) == len(records) == 3 * (1 + ux_configs * len(size.etas) + pfs) + kalman
    assert all(float(r["latency_ns"]) > 0 for r in records if r["family"] in ("ux", "pf", "pf_fast", "kf"))
    assert {m for s, m in methods if s == "sv" and m.startswith(("EKF", "UKF"))} == {"EKF", "UKF", "EKF (log y²)"}
    for system in filtering.SYSTEMS:
        text = (tmp_path / f"{system}.md").read_text()
        assert "| EKF |" in text and "| UKF |" in text and "| EKF (not in the paper) | — |" in text
        assert ("| EKF (log y²) |" in text) == (system == "sv")
        assert "## The Kalman-type baselines" in text and f"- {system}, EKF (RMSE " in text
    readme = (tmp_path / "README.md").read_text()
    assert "## The Kalman-type baselines (EKF, UKF)" in readme and "an empty trace (T = 0) costs" in readme
    assert (
        "| largest per-trace RMSE std of the ux filter, 0 with bit-identical runs | 0.0 | 0.0 | 0.0 | yes |" in readme
    )
    assert "| tuned C PF points Pareto-dominated by a ux point" in readme and "plain / tuned" in readme


def test_ux_std_is_measured_and_zero(results, size):
    table, _ = filtering_report.aggregate(results)
    ux_rows = [r for rows in table.values() for k, r in rows.items() if k[0] == "ux"]
    assert len(ux_rows) == 3 * len(size.etas) * 5  # systems × η × (refined, paper) × likelihoods + mixture kernel
    for r in ux_rows:
        assert r.runs_per_trace == 2 and r.max_trace_std() == 0.0 and r.identical
    for family in ("pf", "pf_fast"):
        pf = table["gss"][(family, 10)]
        assert pf.runs_per_trace == 3 and pf.rmse_std() > 0 and pf.latency_ns > 0


def test_rows_repeat_across_two_runs(results, size):
    """A second run of the benchmark (new filter instances, same seeds) gives the same ux and PF rows."""
    again = runner.execute([t for t in filtering.tasks(size) if t["kind"] == "accuracy"], filtering.run_task, workers=1)
    first = {(r["system"], r["trace"]): r["rows"] for r in results if r["kind"] == "accuracy"}
    assert len(first) == len(again)
    for res in again:
        for a, b in zip(res["rows"], first[(res["system"], res["trace"])]):
            assert a["key"] == b["key"]
            for name in ("rmse", "nll_sum", "crps_sum", "floor_hits"):
                assert a[name] == b[name], (a["key"], name)


# -- the outside check ---------------------------------------------------------------------------------------
def test_an_unavailable_outside_check_is_reported_with_its_reason(monkeypatch, results, size, tmp_path):
    monkeypatch.setattr(particles_check, "environment", lambda: (None, "no wheel of numba for this platform"))
    res = filtering.run_task({"kind": "outside", "size": size, "system": "sv", "traces": [0, 1]})
    assert res["unavailable"] == "no wheel of numba for this platform"
    filtering.report(results + [res], size, tmp_path)
    assert "**Not available**: no wheel of numba for this platform" in (tmp_path / "sv.md").read_text()


def _particles_ready() -> bool:
    venv = particles_check.venv_dir()
    return (venv / f".ready-{particles_check._pins()}").exists()


@pytest.mark.skipif(
    not _particles_ready(), reason="the particles venv is not installed (the benchmark installs it " "on first use)"
)
def test_the_outside_check_runs_the_particles_library(size):
    small = filtering.tiny(T=12, particles=(200,), outside_runs=2)
    res = filtering.run_task({"kind": "outside", "size": small, "system": "sv", "traces": [0]})
    assert "unavailable" not in res, res.get("unavailable")
    (row,) = res["rows"]
    assert row["key"] == ["particles", 200] and len(row["rmse"]) == 2 and row["steps"] == 2 * 12
    grid = grid_filter(ux.systems.get("sv"), filtering.trace_for("sv", 0, small))
    truth = filtering.trace_for("sv", 0, small).x
    assert np.mean(row["rmse"]) == pytest.approx(metrics.rmse(grid.mean, truth), rel=0.25)
    assert math.isfinite(row["nll_sum"]) and row["crps_sum"] > 0


def test_the_outside_gap_has_a_standard_error():
    ours = _row(("pf", 10), [[1.0, 1.2], [2.0, 2.0]])
    theirs = _row(("particles", 10), [[1.1, 1.1], [1.8, 2.2]])
    # per trace: var/2 of each side's runs: (0.02/2 + 0) + (0 + 0.08/2) = 0.05; SE = √0.05 / 2 traces
    assert filtering_report._gap_se(ours, theirs, {0, 1}) == pytest.approx(math.sqrt(0.05) / 2)


def test_tables_render_again_from_the_saved_results(results, size, tmp_path, monkeypatch):
    from uxbench import __main__ as cli
    from uxbench import report

    kept = report.save_run(
        tmp_path / "filtering", "filtering", results, {"machine": "x86_64", "cpus": 2, "load_avg": 1.0}
    )
    filtering.report(kept, size, tmp_path / "filtering", {"machine": "x86_64", "cpus": 2, "load_avg": 1.0})
    first = (tmp_path / "filtering" / "sv.md").read_text()
    (tmp_path / "filtering" / "sv.md").unlink()
    monkeypatch.setitem(filtering.SIZES, "quick", size)
    assert cli.main(["--quick", "--only", "filtering", "--render", "--out", str(tmp_path)]) == 0
    again = (tmp_path / "filtering" / "sv.md").read_text()
    # the same tables, only the size is now named (and so is the command that regenerates it)
    assert again.split("## Our rows")[1] == first.split("## Our rows")[1]
    assert "--quick --only filtering --render" in again


# -- rescoring the density of a saved run -------------------------------------------------------------
def test_rescoring_the_density_reproduces_a_runs_own_nll_and_refuses_a_changed_filter(benchlib):
    import copy

    size = filtering.tiny(systems=("gss",), etas=(8,), particles=(10,))
    saved = [filtering.run_task({"kind": "accuracy", "size": size, "system": "gss", "trace": t}) for t in (0, 1)]
    again = copy.deepcopy(saved)
    for res in again:  # what an older density would have left: the NLL is overwritten below
        for row in res["rows"]:
            if row["key"][0] == "ux":
                row["nll_sum"], row["floor_hits"] = 1e9, -1
    assert filtering.rescore_density(again, size, workers=1) == 2 * sum(r["key"][0] == "ux" for r in saved[0]["rows"])
    assert again == saved  # the same core scores the same NLL; nothing else moved
    ux_row = next(r for r in again[1]["rows"] if r["key"][0] == "ux")
    ux_row["rmse"][0] = math.nextafter(ux_row["rmse"][0], 1.0)  # a saved run from another filter
    with pytest.raises(ValueError, match="RMSE differs"):
        filtering.rescore_density(again, size, workers=1)


# -- timing a saved run again ---------------------------------------------------------------------------
def test_retiming_replaces_only_the_timing_and_says_so(benchlib, tmp_path, monkeypatch):
    from uxbench import __main__ as cli
    from uxbench import report

    size = filtering.tiny(systems=("gss",), etas=(8,), particles=(10,))
    accuracy = filtering.run_task({"kind": "accuracy", "size": size, "system": "gss", "trace": 0})
    stale = {
        "kind": "timing",
        "rows": [
            {
                "system": "gss",
                "key": ["ux", 8, "refined", "kernel"],
                "ns_per_step": -1.0,
                "wall_ns_per_step": -1.0,
                "samples": 1,
            }
        ],
        "empty_call_ns": -1.0,
    }
    report.save_run(tmp_path / "filtering", "filtering", [accuracy, stale], {"machine": "x86_64", "cpus": 2})
    monkeypatch.setitem(filtering.SIZES, "quick", size)
    assert cli.main(["--quick", "--only", "filtering", "--retime", "--out", str(tmp_path)]) == 0
    results, meta = report.load_run(tmp_path / "filtering", "filtering")
    assert results[0] == report.rounded(accuracy)  # the accuracy is the saved run's
    timing = results[1]["rows"]
    assert {tuple(r["key"]) for r in timing} >= {("ux", 8, "refined", "kernel"), ("pf", 10), ("pf_fast", 10)}
    assert all(r["ns_per_step"] > 0 for r in timing)
    assert "load_avg" in meta["retimed"]  # when and where the new timing was taken
    assert "--retime" in (tmp_path / "filtering" / "gss.md").read_text()
    with pytest.raises(SystemExit):
        cli.main(["--quick", "--only", "filtering", "--retime", "--render", "--out", str(tmp_path)])
