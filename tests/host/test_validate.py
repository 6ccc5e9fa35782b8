"""`uxhost validate`: a dump the reference made passes; any disagreement fails and names its step."""

import copy
import math
import re

import numpy as np
import pytest

import uxemu
from uxemu import metrics
from uxhost.cli import main
from uxhost.config import ModelConfig
from uxhost.dump import save_dump
from uxhost.validate import (
    FLOAT_RTOL,
    compare,
    reference_dump,
    reference_filter,
    reference_posteriors,
    step_differences,
)

GSS = ModelConfig("gss", (3.0, 1.0), 8, "refined", "kernel", "gaussian", 0.0, 5.0)


@pytest.fixture(scope="module")
def trace():
    return uxemu.simulate_many(uxemu.systems.get("gss"), 1, 15, 11)[0]


@pytest.fixture(scope="module")
def reference(trace):
    return reference_dump(GSS, trace, "trace.csv")


@pytest.fixture
def dump(reference):
    return copy.deepcopy(reference)


def validate(capsys, tmp_path, dump, *extra, name="d.jsonl"):
    path = tmp_path / name
    save_dump(dump, path)
    code = main(["validate", str(path), *map(str, extra)])
    out, err = capsys.readouterr()
    return code, out, err


def test_reference_dump_passes_exactly(dump, tmp_path, capsys):
    code, out, _ = validate(capsys, tmp_path, dump)
    assert code == 0
    assert "15 steps of gss, η=8, refined, kernel likelihood (made by the reference, 8-byte reals)" in out
    for quantity in ("mean", "variance", "atom positions", "atom weights", "log evidence"):
        assert re.search(rf"^ +{quantity} +0\.000e\+00 ", out, re.MULTILINE), quantity
    law = re.search(r"^ +law \(W1\) +(\S+) ", out, re.MULTILINE)
    assert law and float(law.group(1)) <= 1e-15  # W1 of two equal atom sets: 0 to its sums' rounding
    assert "within tolerance 1e-09 on every step: OK" in out


def test_reference_dump_passes_for_every_system_and_path(tmp_path, capsys):
    for system, mode, likelihood in [("sv", "paper", "sampler"), ("cubic", "refined", "kernel")]:
        model = uxemu.systems.get(system)
        cfg = ModelConfig(system, model.params, 4, mode, likelihood, "gaussian", model.prior.mu, model.prior.sigma)
        tr = uxemu.simulate_many(model, 1, 6, 2)[0]
        code, out, _ = validate(capsys, tmp_path, reference_dump(cfg, tr), name=f"{system}.npz")
        assert code == 0, out


def test_one_perturbed_atom_weight_fails_and_names_the_step(dump, tmp_path, capsys):
    s = dump.steps[7]
    w = list(s.atoms_w)
    w[2] *= 1 + 1e-6
    s.atoms_w = tuple(w)
    code, out, _ = validate(capsys, tmp_path, dump)
    assert code == 1
    assert f"FAILED: step k={s.k} is the first outside tolerance 1e-09 (atom weights: 1.000e-06)" in out


def test_one_perturbed_atom_position_fails_and_names_the_step(dump, tmp_path, capsys):
    s = dump.steps[3]
    x = list(s.atoms_x)
    x[0] = np.nextafter(x[0], -np.inf) - 1e-6 * abs(x[0])
    s.atoms_x = tuple(x)
    code, out, _ = validate(capsys, tmp_path, dump, name="d.npz")
    assert code == 1
    assert f"FAILED: step k={s.k} is the first outside tolerance 1e-09 (atom positions:" in out


def test_only_the_first_bad_step_is_named(dump, tmp_path, capsys):
    dump.steps[4].var *= 1.01
    dump.steps[9].var *= 1.02
    code, out, _ = validate(capsys, tmp_path, dump)
    assert code == 1
    assert "FAILED: step k=4 is the first outside tolerance 1e-09 (variance: 1.000e-02)" in out
    assert "variance        2.000e-02  (step k=9)" in out


def test_a_missing_atom_or_another_status_is_a_failure(dump, tmp_path, capsys):
    dump.steps[5].atoms_x = dump.steps[5].atoms_x[:-1]
    dump.steps[5].atoms_w = dump.steps[5].atoms_w[:-1]
    code, out, _ = validate(capsys, tmp_path, dump)
    assert code == 1 and "step k=5 is the first outside tolerance: its atom count differs from the reference's" in out

    dump2 = copy.deepcopy(dump)
    dump2.steps[5] = copy.deepcopy(
        reference_dump(GSS, uxemu.simulate_many(uxemu.systems.get("gss"), 1, 15, 11)[0]).steps[5]
    )
    dump2.steps[2].status = 1
    code, out, _ = validate(capsys, tmp_path, dump2)
    assert code == 1 and "step k=2 is the first outside tolerance: its status differs from the reference's" in out


def test_rtol_option_sets_the_tolerance(dump, tmp_path, capsys):
    dump.steps[6].mean += 1e-7 * math.sqrt(dump.steps[6].var)
    assert validate(capsys, tmp_path, dump)[0] == 1
    code, out, _ = validate(capsys, tmp_path, dump, "--rtol", "1e-6")
    assert code == 0 and "within tolerance 1e-06" in out


def test_float_build_holds_mean_and_law_to_its_own_tolerance(dump, reference, tmp_path, capsys):
    dump.header.real_bytes = 4
    for s in dump.steps:
        s.mean += 1e-5 * math.sqrt(s.var)
        s.var *= 1 + 1e-5  # a float build's rounding; its variance is state: the next step starts from it
    code, out, _ = validate(capsys, tmp_path, dump)
    assert code == 0 and f"within tolerance (mean {FLOAT_RTOL:g}, law (W1) {10 * FLOAT_RTOL:g})" in out
    assert "one reference step from each previous device posterior" in out
    assert re.search(r"variance +[0-9.]+e-0[0-9]", out) and "(reported, not held to the tolerance)" in out

    s, ref = dump.steps[10], reference.steps[10]
    shift = 20 * FLOAT_RTOL * max(abs(ref.mean), math.sqrt(ref.var))  # W1 of a shift is the shift
    s.atoms_x = tuple(x + shift for x in s.atoms_x)
    code, out, _ = validate(capsys, tmp_path, dump)
    assert code == 1 and f"FAILED: step k={s.k} is the first outside tolerance 0.01 (law (W1): 2.000e-02)" in out

    s.atoms_x = ref.atoms_x
    s.mean = ref.mean + 2 * FLOAT_RTOL * max(abs(ref.mean), math.sqrt(ref.var))
    code, out, _ = validate(capsys, tmp_path, dump)
    # 2e-3 of the run's mean: the step's reference starts from the (perturbed) device's previous posterior
    assert code == 1 and re.search(
        rf"FAILED: step k={s.k} is the first outside tolerance 0.001 \(mean: 2\.00\de-03\)", out
    )


def test_step_reference_starts_from_the_device_posterior(reference, trace):
    given = copy.deepcopy(reference.steps)
    given[4].atoms_x = tuple(x + 0.5 for x in given[4].atoms_x)
    steps = list(reference_posteriors(GSS, trace.k, trace.u, trace.z, given))
    filt = reference_filter(GSS)  # steps 0–4 as the device's (unchanged) records had them, then its step 4
    for i in range(5):
        filt.step(int(trace.k[i]), float(trace.z[i]), float(trace.u[i]), predict=i > 0)
    filt.set_posterior(uxemu.Value(np.array(given[4].atoms_x), np.array(given[4].atoms_w), 8), given[4].var)
    filt.step(int(trace.k[5]), float(trace.z[5]), float(trace.u[5]), predict=True)
    np.testing.assert_array_equal(steps[5][1].x, filt.posterior.x)
    np.testing.assert_array_equal(steps[5][1].w, filt.posterior.w)
    # Run mode ignores the device's posteriors.
    run = list(reference_posteriors(GSS, trace.k, trace.u, trace.z))
    np.testing.assert_array_equal(run[5][1].x, reference.steps[5].atoms_x)
    assert not np.array_equal(steps[5][1].x, run[5][1].x)


def test_reference_option_overrides_the_builds_choice(dump, tmp_path, capsys):
    code, out, _ = validate(capsys, tmp_path, dump, "--reference", "step")
    assert code == 0 and "one reference step from each previous device posterior" in out


def test_a_mean_near_zero_is_compared_at_the_posterior_scale(reference):
    rec = copy.deepcopy(reference.steps[0])
    post = uxemu.Value(np.array(rec.atoms_x), np.array(rec.atoms_w), 8)
    rec.mean = post.mean() + 1e-12  # the prior's mean is 0 up to rounding; its std is about 5
    diffs = step_differences(rec, 0, post)
    assert diffs["mean"] < 1e-12


def test_metrics_against_the_truth(dump, trace, tmp_path, capsys):
    code, out, _ = validate(capsys, tmp_path, dump)
    values = [uxemu.Value(np.array(s.atoms_x), np.array(s.atoms_w), 8) for s in dump.steps]
    rmse = metrics.rmse([v.mean() for v in values], trace.x)
    nll = metrics.nll([metrics.log_pdf_value(v, y) for v, y in zip(values, trace.x)]).mean
    crps = np.mean([metrics.crps_value(v, y) for v, y in zip(values, trace.x)])
    assert f"against the true state: RMSE {rmse:.4g}, NLL {nll:.4g} " in out
    assert f"CRPS {crps:.4g}" in out


def test_truth_from_the_trace_when_the_dump_lacks_it(dump, trace, tmp_path, capsys):
    for s in dump.steps:
        s.x = None
    code, out, _ = validate(capsys, tmp_path, dump)
    assert code == 0 and "RMSE" not in out
    trace.to_csv(tmp_path / "trace.csv")
    code, out, _ = validate(capsys, tmp_path, dump, "--trace", tmp_path / "trace.csv")
    assert code == 0 and "RMSE" in out


def test_a_trace_that_is_not_the_dumps_is_an_error(dump, trace, tmp_path, capsys):
    other = uxemu.simulate_many(uxemu.systems.get("gss"), 1, 15, 12)[0]
    other.to_csv(tmp_path / "other.csv")
    code, out, err = validate(capsys, tmp_path, dump, "--trace", tmp_path / "other.csv")
    assert code == 2 and out == ""
    assert "row 1 (k=0) does not match the dump's step k=0" in err


def test_empty_and_missing_dumps_are_errors(dump, tmp_path, capsys):
    dump.steps = []
    code, _, err = validate(capsys, tmp_path, dump)
    assert code == 2 and err.strip() == "uxhost validate: error: the dump has no step records: nothing to validate"
    code = main(["validate", str(tmp_path / "none.jsonl")])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def test_compare_reports_the_worst_step_per_quantity(dump):
    s = dump.steps[8]
    sigma = math.sqrt(s.var)
    expected = 1e-3 * sigma / max(abs(s.mean), sigma)
    s.mean += 1e-3 * sigma
    cmp = compare(dump)
    assert cmp.worst_k["mean"] == s.k
    assert cmp.max_rel["mean"] == pytest.approx(expected, rel=1e-6)
    assert cmp.first_bad[:2] == (dump.steps[8].k, "mean")


def test_a_nan_from_the_device_is_an_infinite_difference(reference):
    rec = copy.deepcopy(reference.steps[3])
    post = uxemu.Value(np.array(rec.atoms_x), np.array(rec.atoms_w), 8)
    rec.mean = math.nan
    rec.atoms_w = rec.atoms_w[:-1] + (math.nan,)
    diffs = step_differences(rec, 0, post)
    assert diffs["mean"] == diffs["atoms_w"] == diffs["law"] == math.inf
    rec.atoms_x, rec.atoms_w = rec.atoms_x[:-1], rec.atoms_w[:-1]
    diffs = step_differences(rec, 0, post)
    assert diffs["mean"] == diffs["count"] == math.inf


def test_log_evidence_is_validated_and_summed(dump, tmp_path, capsys):
    code, out, _ = validate(capsys, tmp_path, dump)
    total = float(np.cumsum([s.log_evidence for s in dump.steps])[-1])
    assert code == 0 and f"log-likelihood log p(z) {total:.6f} over {len(dump)} steps (reference {total:.6f})" in out
    bad = copy.deepcopy(dump)
    bad.steps[3].log_evidence += 1e-6  # a nat in a million: far beyond the double build's 1e-9
    code, out, _ = validate(capsys, tmp_path, bad)
    assert code == 1 and f"FAILED: step k={bad.steps[3].k} is the first outside tolerance 1e-09 (log evidence" in out


def test_a_version_1_dump_without_log_evidence_still_validates(dump, tmp_path, capsys):
    old = copy.deepcopy(dump)
    for s in old.steps:
        s.log_evidence = math.nan  # what reading a version 1 dump gives
    code, out, _ = validate(capsys, tmp_path, old)
    assert code == 0 and "log-likelihood" not in out


def test_exact_passes_the_reference_own_dump_and_fails_on_one_ulp(dump, tmp_path, capsys):
    code, out, _ = validate(capsys, tmp_path, dump, "--exact")
    assert code == 0 and "every atom, weight and log evidence equal bit for bit on every step: OK" in out
    s = dump.steps[8]
    s.atoms_x = (np.nextafter(s.atoms_x[0], np.inf),) + tuple(s.atoms_x[1:])  # one ulp: within 1e-9, not exact
    assert validate(capsys, tmp_path, dump)[0] == 0
    code, out, _ = validate(capsys, tmp_path, dump, "--exact")
    assert code == 1 and f"FAILED: step k={s.k} is the first outside tolerance 0 (atom positions:" in out


def test_exact_checks_a_float_dump_against_the_host_float_build(tmp_path, capsys):
    """A float device's dump is its host float build's bits (libux_float.so), not the double reference's."""
    from uxemu import native

    cfg = ModelConfig("gss", (3.0, 1.0), 8, "refined", "kernel", "gaussian", 0.0, 5.0)
    tr = uxemu.simulate_many(uxemu.systems.get("gss"), 1, 10, 4)[0]
    host = copy.deepcopy(reference_dump(cfg, tr))
    host.header.real_bytes = 4
    filt = reference_filter(cfg, float_build=True, host_build=True)
    assert isinstance(filt.filter, native.NativeFilter)
    for i, step in enumerate(host.steps):
        step.status = filt.step(int(tr.k[i]), float(tr.z[i]), float(tr.u[i]), predict=i > 0)
        post = filt.posterior
        step.atoms_x, step.atoms_w = tuple(map(float, post.x)), tuple(map(float, post.w))
        step.log_evidence = float(filt.log_evidence)
    code, out, _ = validate(capsys, tmp_path, host, "--exact")
    assert code == 0, out
    assert validate(capsys, tmp_path, copy.deepcopy(reference_dump(cfg, tr)), "--exact")[0] == 0
    double_as_float = copy.deepcopy(reference_dump(cfg, tr))
    double_as_float.header.real_bytes = 4  # double bits claimed by a float build: not the float build's
    assert validate(capsys, tmp_path, double_as_float, "--exact")[0] == 1


def test_exact_refuses_a_tolerance(dump, tmp_path, capsys):
    code, _, err = validate(capsys, tmp_path, dump, "--exact", "--rtol", "1e-6")
    assert code == 2 and "--exact" in err
