"""`python -m uxbench firmware_costs` on its smallest setting: one board, η = 4 and 8, a 3-step trace. Its sizes
must be what `make arm` prints, its cycle counts what the device reports for the same steps (η = 4 on the
η = 8 image: no image is built below 8), and its three files must agree."""

import csv

import pytest
from fwutil import GSS, configure_args

from uxbench import firmware_costs
from uxbench.__main__ import main as uxbench
from uxemu import systems, traces
from uxhost import link, qemu

pytestmark = pytest.mark.qemu


@pytest.fixture(scope="module")
def costs():
    return firmware_costs


def run(argv: list[str]) -> int:
    return uxbench(["firmware_costs", *argv])


def test_small_run_writes_consistent_results(costs, tmp_path, capsys):
    out = tmp_path / "firmware.md"
    argv = [
        "--boards",
        "mps2-an500",
        "--etas",
        "4,8",
        "--steps",
        "3",
        "--joint-steps",
        "3",
        "--seed",
        "4",
        "--out",
        str(out),
    ]
    assert run(argv) == 0
    record = costs.read_record(out)
    rows = list(csv.DictReader(out.with_suffix(".csv").open()))
    md = out.read_text()
    assert costs.render(record) == md  # --render-only writes the same file from the .json.gz

    [build] = record["builds"]
    assert build["board"] == "mps2-an500" and build["max_eta"] == 8
    assert build["stack"] == -(-build["stack_bound"] // 8) * 8 and build["stack_path"].startswith(
        "Reset_Handler → main"
    )
    assert (
        f"| mps2-an500 | 8 | {build['flash']:,} | {build['ram']:,} | {build['stack']:,} | {build['stack_bound']:,} |"
        in md
    )
    [mark] = record["stack"]  # measured on the image built, below its static bound
    assert mark["board"] == "mps2-an500" and mark["etas"] == [8] and mark["reserved"] == build["stack"]
    assert 1024 < mark["high_water"] <= mark["stack_bound"] == build["stack_bound"]
    assert f"| mps2-an500 | 8 | {build['stack']:,} | {build['stack_bound']:,} | {mark['high_water']:,} (8) |" in md
    assert "uxbench firmware_costs --boards mps2-an500 --etas 4,8" in md and "-icount shift=6" in md
    # every joint system × the η 8, 16, 32 whose answer fits a frame (bearings, d = 4: η ≤ 16) × the joint modes
    configs = sum(
        costs.joint.posterior_fits(costs.joint_systems.spec(s).dim, e)
        for s in costs.joint_systems.names()
        for e in (8, 16, 32)
    )
    assert configs >= 2 * 3 + 2  # pendulum, cvrange × 3 and bearings × 2 at least
    assert costs.JOINT_HEADING in md and len(record["joint_cycles"]) == configs * len(costs.JOINT_MODES)

    # systems × η × modes × likelihoods
    assert len(record["cycles"]) == len(rows) == len(costs.SYSTEMS) * 2 * 2 * 2
    assert {c["eta"] for c in record["cycles"]} == {4, 8}
    assert all(c["steps"] == 2 and c["predict_max"] >= c["predict_median"] > 0 for c in record["cycles"])
    assert [int(r["update_max"]) for r in rows] == [c["update_max"] for c in record["cycles"]]
    assert "[" in capsys.readouterr().err  # progress

    # The same trace streamed here, on the image the benchmark built, gives the same counts.
    image = costs.SCRATCH / "mps2-an500-eta8" / "firmware.elf"
    tr = traces.simulate(systems.get(GSS), 3, costs.np.random.default_rng([4, GSS]))
    for eta in (4, 8):
        gss = next(
            c
            for c in record["cycles"]
            if (c["system"], c["eta"], c["mode"], c["likelihood"]) == ("gss", eta, "refined", "kernel")
        )
        with qemu.boot("mps2-an500", image) as instance, link.Device.open(instance.url, timeout=30) as dev:
            dev.configure(**configure_args(GSS, eta))
            steps = [dev.step(int(tr.k[i]), i > 0, float(tr.u[i]), float(tr.z[i])) for i in range(3)]
        assert gss["update_max"] == max(s.cycles_update for s in steps[1:])
        assert gss["predict_max"] == max(s.cycles_predict for s in steps[1:])
        assert gss["update_step0"] == steps[0].cycles_update
        assert gss["step_mean"] == sum(s.cycles_predict + s.cycles_update for s in steps[1:]) / 2


def test_sizes_only_replaces_the_sizes_and_keeps_the_cycles(costs, tmp_path):
    """--sizes-only on a whole run's results: the flash, RAM and stack sections are this build's, the cycle
    tables and the CSV stay as they were."""
    out = tmp_path / "firmware.md"
    builds = [costs.Build("microbit", 8, 1, 2, 3432, 3428, "Reset_Handler → main")]
    marks = [costs.StackMark("microbit", 8, [8], 3000, 3432, 3428)]
    meta = {
        "command": "full",
        "wall_s": 1.0,
        "load": "0",
        "commit": "c0",
        "fw_versions": ["v"],
        "gcc": "gcc",
        "qemu": "qemu",
        "qemu_command": "qemu-system-arm -M microbit",
        "icount_shift": 6,
        "steps": 3,
        "slow_steps": 2,
        "seed": 1,
    }
    cycles = [costs.Costs("microbit", "gss", 8, "refined", "kernel", 2, 1088, 10.0, 11, 20.0, 21, 5, 0)]
    out.write_text(costs.markdown(builds, marks, cycles, meta))
    costs.write_json_gz(costs.record_path(out), {"builds": [], "cycles": ["kept"]})
    before = out.read_text()

    argv = ["--sizes-only", "--boards", "microbit", "--etas", "8", "--out", str(out)]
    assert run(argv) == 0
    after = out.read_text()
    record = costs.read_record(out)
    [build], [mark] = record["builds"], record["stack"]
    assert record["cycles"] == ["kept"] and record["sizes"]["command"].endswith(" ".join(argv))
    assert after.split(costs.CYCLES_HEADING)[1] == before.split(costs.CYCLES_HEADING)[1]
    assert after.startswith(
        before.split("\n\n")[0] + "\n\n" + before.split("\n\n")[1] + "\n\nFlash, RAM and stack "
        "regenerated by `.venv/bin/python -m uxbench firmware_costs --sizes-only"
    )
    assert (
        f"| microbit | 8 | {build['flash']:,} | {build['ram']:,} | {build['stack']:,} | {build['stack_bound']:,} |"
        in after
    )
    assert f"| microbit | 8 | {mark['reserved']:,} | {mark['stack_bound']:,} | {mark['high_water']:,} (8) |" in after
    assert "| microbit | 8 | 1 | 2 |" not in after
    # again: one note, not two
    assert run(argv) == 0
    assert out.read_text().count("Flash, RAM and stack regenerated") == 1


def test_joint_only_appends_the_joint_section(costs, tmp_path):
    """--joint-only: the image with and without joint systems, and STEP cycles of every joint system
    at η = 8, 16, 32 in each joint mode (refined, paper, cells), appended to --out (a second run replaces the section, not repeats it)."""
    out = tmp_path / "firmware.md"
    out.write_text("# Firmware costs per board\n\n## Virtual cycles per step\n\nscalar tables\n")
    argv = ["--joint-only", "--joint-steps", "3", "--seed", "4", "--out", str(out)]
    assert run(argv) == 0
    record = costs.read_record(out)
    with_joint, without = record["joint_builds"]
    # The joint filter shares the scalar one's slots and workspace: static RAM grows only by what a joint
    # filter and its workspace (sized for d = 4) are larger than a scalar one's — less than the η² reals of
    # each component beyond two at the image's η (a second pair of filters and workspace would be far more).
    eta, extra_components = 32, max(costs.joint_systems.spec(s).dim for s in costs.joint_systems.names()) - 2
    growth = (with_joint["ram"] - with_joint["stack"]) - (without["ram"] - without["stack"])
    assert 0 <= growth < extra_components * eta * eta * 8 + 256
    assert with_joint["flash"] > without["flash"]
    rows = record["joint_cycles"]
    assert {(c["system"], c["eta"], c["mode"]) for c in rows} == {
        (s, e, m)
        for s in costs.joint_systems.names()
        for e in (8, 16, 32)
        if costs.joint.posterior_fits(costs.joint_systems.spec(s).dim, e)  # bearings (d = 4): η ≤ 16
        for m in ("refined", "paper", "cells")
    }
    assert all(c["steps"] == 2 and c["update_max"] >= c["update_median"] > 0 for c in rows)
    md = out.read_text()
    assert md.startswith("# Firmware costs per board\n\n## Virtual cycles per step\n\nscalar tables\n")
    assert md.count(costs.JOINT_HEADING) == 1 and f"| with joint systems | {with_joint['flash']:,} |" in md
    assert run(argv) == 0
    assert out.read_text().count(costs.JOINT_HEADING) == 1
