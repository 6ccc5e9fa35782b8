"""`uxhost fit`: parameters recovered from a simulated trace, and every bad option as one line."""

import json

import pytest

from uxemu import Trace, fit, kalman, systems
from uxhost.cli import main

from cli_run import run_cli


@pytest.fixture(scope="module")
def lg_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("fit") / "lg.csv"
    assert (
        main(
            ["simulate", "--system", "lg", "--params", "q=0.3,r=0.8", "--steps", "300", "--seed", "5", "-o", str(path)]
        )
        == 0
    )
    return path


def test_fit_recovers_the_simulated_parameters(lg_csv, tmp_path, capsys):
    out = tmp_path / "fit.json"
    code, stdout, err = run_cli(capsys, "fit", lg_csv, "--free", "q,r", "--json", out)
    assert code == 0, err
    assert "fit q, r of lg" in stdout and "(system and parameters from" in stdout and "converged" in stdout
    result = json.loads(out.read_text())
    assert result["engine"] == "native" and result["eta"] == 16 and result["params"]["a"] == 0.95
    # The oracle is the exact maximum-likelihood estimate (Kalman), not the simulated values: η = 16 lands
    # within a quarter of a standard error of it.
    exact, se = kalman.fit_noises(Trace.from_csv(lg_csv).z, 0.95, *systems.spec("lg").prior[1:])
    for name, best, s, true in zip(("q", "r"), exact, se, (0.3, 0.8)):
        assert abs(result["estimate"][name] - best) < 0.25 * s, (name, result, best)
        assert abs(result["stderr"][name] / s - 1) < 0.25
        assert f"{true:>12.5g}" in stdout  # the simulated value, from the trace header


def test_fit_runs_mixture_mode_unless_told(lg_csv, tmp_path, capsys):
    """A fit's default mode is uxemu.fit's (mixture), not a filter run's; --mode still chooses, and the help
    says which default applies."""
    for argv, mode in (((), "mixture"), (("--mode", "refined"), "refined")):
        out = tmp_path / f"fit-{mode}.json"
        code, stdout, err = run_cli(capsys, "fit", lg_csv, "--free", "r", "--eta", 8, *argv, "--json", out)
        assert code == 0, err
        assert f"η=8, {mode}, kernel likelihood" in stdout and json.loads(out.read_text())["mode"] == mode
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    assert "(default: mixture; a joint system: cells)" in " ".join(capsys.readouterr().out.split())


def test_a_joint_trace_is_fitted_on_the_cell_filter(tmp_path, capsys):
    """A joint system's trace (its header names it) is read with its dimensions and fitted on the cells, the
    library's fit on the same trace giving the same estimate."""
    import numpy as np

    trace, out = tmp_path / "re.csv", tmp_path / "re.json"
    code, _, err = run_cli(capsys, "simulate", "--system", "reentry", "--steps", 80, "--seed", 3, "-o", trace)
    assert code == 0, err
    code, stdout, err = run_cli(capsys, "fit", trace, "--free", "q", "--json", out)
    assert code == 0, err
    assert "fit q of reentry" in stdout and "η=16, cells, kernel likelihood" in stdout
    result = json.loads(out.read_text())
    assert result["mode"] == "cells" and abs(result["estimate"]["q"] - 0.001) < 2 * result["stderr"]["q"]
    low, high = result["interval"]["q"]  # a joint fit is profiled unless told not to (joint_fit.PROFILE_BY_DEFAULT)
    assert low < result["estimate"]["q"] < high and "profile interval" in stdout
    code, stdout, err = run_cli(capsys, "fit", trace, "--free", "q", "--no-profile", "--json", out, "--force")
    assert code == 0 and not json.loads(out.read_text())["interval"] and "profile interval" not in stdout, err
    rows = np.loadtxt(trace, delimiter=",", skiprows=3)
    lib = fit.fit("reentry", Trace(rows[:, 0], rows[:, 1], rows[:, 2:3]), ["q"])
    assert lib.estimate["q"] == result["estimate"]["q"]


def test_a_joint_fit_names_an_influential_outlier_by_its_column(tmp_path, capsys):
    """A cvrange range reading moved 40 noise sd: the fit on the cells warns of it (the cell filter's innovation
    gate at the optimum) and names the reading's column, z0."""
    import numpy as np

    trace, spoiled = tmp_path / "cv.csv", tmp_path / "spoiled.csv"
    code, _, err = run_cli(capsys, "simulate", "--system", "cvrange", "--steps", 120, "--seed", 3, "-o", trace)
    assert code == 0, err
    lines = trace.read_text().splitlines()
    header = [ln for ln in lines if ln.startswith("#") or ln.startswith("k,")]
    rows = np.loadtxt(trace, delimiter=",", skiprows=len(header))
    rows[70, 2] += 20.0
    spoiled.write_text("\n".join(header + [",".join(repr(float(v)) for v in row) for row in rows]) + "\n")
    code, stdout, err = run_cli(capsys, "fit", spoiled, "--free", "r", "--eta", 8, "--no-profile")
    warnings = [line for line in stdout.splitlines() if "influential outlier" in line]
    assert code == 0 and len(warnings) == 1, (stdout, err)
    assert "k=70 " in warnings[0] and "leave its 'z0' empty" in warnings[0]
    code, stdout, err = run_cli(capsys, "fit", trace, "--free", "r", "--eta", 8, "--no-profile")
    assert code == 0 and "influential outlier" not in stdout, stdout


@pytest.mark.parametrize(
    "argv, complaint",
    [
        (("--free", "sigma"), "--free: system lg has parameters a, q, r; got sigma"),
        (("--free", "q", "--start", "r=1"), "--start 'r=1': expected NAME=VALUE with NAME one of q"),
        (("--free", "q", "--bounds", "q=0.1"), "q=0.1: expected LO:HI"),
        (("--free", "q", "--bounds", "q=a:b"), "--start/--bounds"),
        (("--free", "q", "--system", "nope"), "no system 'nope'"),
        (("--free", "q", "--start", "q=-1"), "start q = -1.0: not positive"),
        (
            ("--free", "q", "--system", "pendulum", "--mode", "refined"),
            "pendulum is a joint system; mode 'refined' is not fitted",
        ),
        (("--free", "q", "--system", "pendulum", "--evidence", "density"), "a joint system's log-likelihood sums"),
    ],
)
def test_bad_options_are_one_line(lg_csv, capsys, argv, complaint):
    code, _, err = run_cli(capsys, "fit", lg_csv, *argv)
    assert code == 2 and complaint in err and len(err.strip().splitlines()) == 1, err


def test_fit_on_the_density_evidence(lg_csv, tmp_path, capsys):
    out = tmp_path / "fit.json"
    code, stdout, err = run_cli(capsys, "fit", lg_csv, "--free", "q,r", "--evidence", "density", "--json", out)
    assert code == 0, err
    assert "density evidence" in stdout
    result = json.loads(out.read_text())
    assert result["evidence"] == "density"
    exact, se = kalman.fit_noises(Trace.from_csv(lg_csv).z, 0.95, *systems.spec("lg").prior[1:])
    for name, best, s in zip(("q", "r"), exact, se):
        assert abs(result["estimate"][name] - best) < 0.25 * s, (name, result, best)


def test_the_clis_choices_are_the_libraries():
    from uxemu import fit
    from uxhost.commands import fit as command

    assert command.EVIDENCE == fit.EVIDENCE and command.DEFAULT_EVIDENCE == "update"


def test_a_smooth_fit_has_no_warning(lg_csv, tmp_path, capsys):
    out = tmp_path / "fit.json"
    code, stdout, err = run_cli(capsys, "fit", lg_csv, "--free", "q,r", "--json", out)
    assert code == 0, err
    result = json.loads(out.read_text())
    assert result["stderr_reliable"] and result["roughness"] < 0.1 and "warning" not in stdout


def test_a_fit_whose_optimum_leaves_readings_inconsistent_says_so(tmp_path, capsys):
    """lg whose last quarter of readings carry 10 times the sensor noise: the fit warns, once, that the filter at
    the optimum calls those steps INCONSISTENT, and --json lists them; the clean trace (test above) has none."""
    import numpy as np

    trace, spoiled, out = tmp_path / "lg.csv", tmp_path / "spoiled.csv", tmp_path / "fit.json"
    code, _, err = run_cli(capsys, "simulate", "--system", "lg", "--steps", 200, "--seed", 3, "-o", trace)
    assert code == 0, err
    lines = trace.read_text().splitlines()
    header = [ln for ln in lines if ln.startswith("#") or ln.startswith("k,")]
    rows = np.loadtxt(trace, delimiter=",", skiprows=len(header))
    rows[150:, 2] = rows[150:, 3] + 10.0 * (rows[150:, 2] - rows[150:, 3])  # z = x + 10 × its noise
    spoiled.write_text("\n".join(header + [",".join(repr(float(v)) for v in row) for row in rows]) + "\n")
    code, stdout, err = run_cli(capsys, "fit", spoiled, "--free", "q,r", "--eta", 8, "--no-profile", "--json", out)
    warnings = [line for line in stdout.splitlines() if "INCONSISTENT at the optimum" in line]
    assert code == 0 and len(warnings) == 1, (stdout, err)
    steps = json.loads(out.read_text())["inconsistent"]
    assert len(steps) > 10 and min(steps) >= 150 and f"k={steps[0]}" in warnings[0]


def test_a_rough_log_likelihood_is_warned_about(tmp_path, capsys):
    # gss in refined mode at η = 4 loses one of its two modes at some θ: log L has cliffs, and the standard
    # errors read from its curvature mean nothing — the output says so instead of printing them as if they held.
    trace, out = tmp_path / "gss.csv", tmp_path / "fit.json"
    assert main(["simulate", "--system", "gss", "--steps", "300", "--seed", "5", "-o", str(trace)]) == 0
    code, stdout, err = run_cli(
        capsys, "fit", trace, "--free", "sigma_v,sigma_n", "--eta", "4", "--mode", "refined", "--json", out
    )
    result = json.loads(out.read_text())
    assert not result["stderr_reliable"] and result["roughness"] > 0.1
    assert "warning: the log-likelihood is" in stdout
    assert "they do not hold; a larger η smooths it (--eta 8), as does --mode mixture" in stdout
    assert "nan se" not in stdout  # a standard error its curvature cannot give is said so, never printed as NaN


def test_the_larger_eta_a_rough_fit_is_pointed_to_is_one_the_device_takes():
    # The next η the protocol allows, named as the option; a device built for fewer atoms cannot take it, and
    # the hint says where it can be had instead; at the largest η there is none to name.
    from uxhost.commands.fit import larger_eta_hint
    from uxhost.config import etas

    assert larger_eta_hint(16, None) == " (--eta 32)"
    assert larger_eta_hint(16, 64) == " (--eta 32)"
    assert (
        larger_eta_hint(16, 16)
        == " (this firmware takes η ≤ 16: the host's fit, without --port/--board, takes --eta 32)"
    )
    assert larger_eta_hint(max(etas()), None) == f" (but {max(etas())} is the largest η there is)"


def test_mixture_mode_fits_gss_smoothly_at_eta_4(tmp_path, capsys):
    # The same trace in the default mode: the quadrature's region follows GSS's narrow likelihood
    # (docs/semantics.md, "Filter"), so log L is smooth on the standard errors' scale even at η = 4 (it was
    # 0.26 nats rms off before the region), and both simulated values are within two standard errors.
    trace, out = tmp_path / "gss.csv", tmp_path / "fit.json"
    assert main(["simulate", "--system", "gss", "--steps", "300", "--seed", "5", "-o", str(trace)]) == 0
    code, stdout, err = run_cli(capsys, "fit", trace, "--free", "sigma_v,sigma_n", "--eta", "4", "--json", out)
    result = json.loads(out.read_text())
    assert code == 0, err
    assert result["mode"] == "mixture" and result["stderr_reliable"] and result["roughness"] < 0.1
    for name, truth in (("sigma_v", 3.0), ("sigma_n", 1.0)):
        assert abs(result["estimate"][name] - truth) <= 2 * result["stderr"][name], (name, result)


def test_profile_intervals_are_printed_and_written(lg_csv, tmp_path, capsys):
    # The library's intervals (tests/emulator/test_profile.py: the Kalman likelihood's profile), bit for bit.
    # On this trace q's log L is skewed: the simulated 0.3 is 2.2 standard errors above the estimate, and
    # inside its profile interval [0.158, 0.309] (the exact one: [0.157, 0.309]).
    out = tmp_path / "fit.json"
    code, stdout, err = run_cli(capsys, "fit", lg_csv, "--free", "q,r", "--profile", "--json", out)
    assert code == 0, err
    library = fit.fit("lg", Trace.from_csv(lg_csv), ["q", "r"], profile=True)  # the CLI starts at the defaults too
    result = json.loads(out.read_text())
    assert result["interval"] == {n: list(v) for n, v in library.interval.items()}
    assert "profile interval" in stdout and stdout.count("inside the interval") == 2 and "(-2.2 se)" in stdout
    code, stdout, err = run_cli(capsys, "fit", lg_csv, "--free", "q,r", "--json", out, "--force")
    assert json.loads(out.read_text())["interval"] == {} and "profile interval" not in stdout


def test_a_skewed_fit_points_to_the_profile(tmp_path, capsys):
    # The README's sv trace whose log L is smooth but skewed: the warning says --profile follows its two
    # sides, and with --profile φ's interval reaches further below the estimate than above it.
    assert (
        main(
            [
                "simulate",
                "--system",
                "sv",
                "--steps",
                "500",
                "--seed",
                "2031",
                "--traces",
                "74",
                "-o",
                str(tmp_path / "sv.csv"),
            ]
        )
        == 0
    )
    trace = tmp_path / "sv-073.csv"
    code, stdout, err = run_cli(capsys, "fit", trace, "--free", "phi,sigma_eta")
    assert "smooth but skewed" in stdout and "--profile gives intervals that follow them" in stdout
    out = tmp_path / "fit.json"
    code, stdout, err = run_cli(capsys, "fit", trace, "--free", "phi,sigma_eta", "--profile", "--json", out)
    result = json.loads(out.read_text())
    low, high = result["interval"]["phi"]
    assert result["estimate"]["phi"] - low > 2 * (high - result["estimate"]["phi"])
    assert "--profile gives" not in stdout


def test_a_noise_scale_the_trace_cannot_tell_from_0_is_explained(tmp_path, capsys):
    # cubic's σ_v = 0.05 on a 500-step trace: the estimate lands near 0 (7.8e-7 here) and has no standard error
    # (109 of 200 such fits, benchmarks/results/stderr_calibration.md). The output says why and what gives an
    # interval; c keeps its own standard error and no note; with --profile the interval is there, from 0.
    trace, out = tmp_path / "cubic.csv", tmp_path / "fit.json"
    assert main(["simulate", "--system", "cubic", "--steps", "500", "--seed", "1", "-o", str(trace)]) == 0
    code, stdout, err = run_cli(capsys, "fit", trace, "--free", "c,sigma_v", "--json", out)
    assert code == 0, err
    assert (
        "note: sigma_v has no standard error: the trace cannot tell it from 0 (log L falls by less than "
        f"{fit.EDGE_DROP} nats over ± half its estimate); --profile gives an interval that needs none"
    ) in stdout
    assert "note: c " not in stdout and "warning" not in stdout
    result = json.loads(out.read_text())
    assert list(result["no_stderr"]) == ["sigma_v"] and result["stderr"]["c"] > 0
    code, stdout, err = run_cli(capsys, "fit", trace, "--free", "c,sigma_v", "--profile", "--json", out, "--force")
    assert "has no standard error: the trace cannot tell it from 0" in stdout and "--profile gives" not in stdout
    low, high = json.loads(out.read_text())["interval"]["sigma_v"]
    assert low == 0 and high > 0.05


def test_an_optimum_below_a_run_the_fit_saw_is_not_called_converged(lg_csv, tmp_path, capsys, monkeypatch):
    # A log L with a bump 10 nats high where only the standard errors' first step along q lands (log L not smooth
    # there), and no second search (uxemu.fit.MAX_POLISHES = 0): the optimum is below a run of the fit. The output
    # says so in one warning line that names the run and how to start there, "converged" is not printed, the
    # JSON carries the run, and the exit code is 1.
    trace = Trace.from_csv(lg_csv)
    plain = fit.fit("lg", trace, ["q", "r"])  # what the CLI fits: the same defaults, scan and search
    _, q, r = plain.params
    probe = q + 0.05 * q  # fit.standard_errors' first step along q

    class Bumped(fit.LogLikelihood):
        def _value(self, params):
            bump = abs(params[1] - probe) < 1e-9 * q and abs(params[2] - r) < 1e-9 * r
            return super()._value(params) + (10.0 if bump else 0.0)

    monkeypatch.setattr(fit, "LogLikelihood", Bumped)
    monkeypatch.setattr(fit, "MAX_POLISHES", 0)
    out = tmp_path / "fit.json"
    code, stdout, err = run_cli(capsys, "fit", lg_csv, "--free", "q,r", "--json", out)
    assert code == 1, err
    assert "; converged" not in stdout and "NOT converged: a filter run was better (warning below)" in stdout
    warnings = [line for line in stdout.splitlines() if line.startswith("  warning: a filter run at")]
    assert len(warnings) == 1 and f"--start q={probe:.6g},r={r:.6g})" in warnings[0], stdout
    assert "nats above the optimum's, which is therefore not the maximum" in warnings[0]
    result = json.loads(out.read_text())
    assert result["converged"] is False and result["estimate"] == plain.estimate
    assert result["better_seen"]["params"] == {"q": probe, "r": r}
    assert result["better_seen"]["log_likelihood"] > plain.log_likelihood + 9.9
    monkeypatch.undo()  # the filter's own log L: no run beats the optimum
    code, stdout, err = run_cli(capsys, "fit", lg_csv, "--free", "q,r", "--json", out, "--force")
    assert code == 0 and "; converged" in stdout and json.loads(out.read_text())["better_seen"] is None
