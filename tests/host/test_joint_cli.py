"""`uxhost simulate`, `stream`, `validate` and `plot` for joint (vector-state) systems: the trace CSV and
its errors, a dump the reference made itself validating exactly (and a perturbed one failing), the plot,
and the whole chain through the firmware in QEMU."""

import math
import json

import numpy as np
import pytest

from uxemu import joint_systems
from uxemu.joint_cells import run_joint_cells
from uxemu.joint_filter import run_joint_filter
from uxhost import joint
from uxhost.dump import DumpError, load_dump, save_dump
from uxhost.traces import load_trace
from uxhost.cli import main
from uxhost.errors import InputError


def reference_dump(name="pendulum", T=10, eta=8, mode="refined", missing=(4,)) -> joint.JointDump:
    """A dump as a perfect double device would write it: the reference's own posteriors."""
    spec = joint_systems.spec(name)
    cfg = joint.resolve(spec, eta=eta, mode=mode)
    trace = joint.simulate(spec, cfg.params, T, seed=5)
    for i in missing:
        trace.z[i] = np.nan
    run = (
        run_joint_cells(cfg.model(), trace.z, eta)
        if mode == "cells"
        else run_joint_filter(cfg.model(), trace.z, eta, mode)
    )
    # (rows, weights) per step: the atom filter's atoms, or the cell filter's cells' means and weights
    atoms = [(c[1], c[0]) if mode == "cells" else (c.x, c.w) for c in run.posteriors]
    steps = [
        joint.JointStep(
            int(trace.k[i]),
            0.0,
            trace.observation(i) if trace.observation(i) is None else tuple(trace.z[i]),
            tuple(trace.x[i]),
            int(run.status[i]),
            tuple(run.mean[i]),
            tuple(run.cov[i].ravel()),
            float(run.log_evidence[i]),
            tuple(atoms[i][1]),
            tuple(atoms[i][0].ravel()),
        )
        for i in range(T)
    ]
    return joint.JointDump(joint.JointHeader(cfg, trace_steps=T), steps)


def test_simulate_writes_a_joint_trace(tmp_path, capsys):
    out = tmp_path / "p.csv"
    assert main(["simulate", "--system", "pendulum", "--steps", "6", "--seed", "2", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[:3] == ["# system: pendulum", "# params: 0.05,9.81,0.5,0.3", "k,u,z0,x0,x1"]
    trace = load_trace(out, dim_obs=1, dim=2)
    x, z = joint_systems.simulate(joint_systems.get("pendulum"), 6, 2)
    assert np.array_equal(trace.x, x) and np.array_equal(trace.z, z)  # repr round trip: bit for bit


def test_trace_missing_observation_and_errors(tmp_path):
    good = tmp_path / "t.csv"
    good.write_text("k,u,z0,z1\n0,0,1.0,2.0\n1,0,,\n")
    trace = load_trace(good, dim_obs=2)
    assert trace.observation(0).tolist() == [1.0, 2.0] and trace.observation(1) is None
    half = tmp_path / "half.csv"
    half.write_text("k,u,z0,z1\n0,0,1.0,\n")
    with pytest.raises(InputError, match=r"half.csv:2: some observation components are empty"):
        load_trace(half)
    with pytest.raises(InputError, match="2 observation column"):
        load_trace(good, dim_obs=1)
    inf = tmp_path / "inf.csv"
    inf.write_text("k,u,z0\n0,0,inf\n")
    with pytest.raises(InputError, match=r"inf.csv:2: column 'z0' is not finite"):
        load_trace(inf)


def test_joint_prior_option():
    spec = joint_systems.spec("cvrange")
    cfg = joint.resolve(spec, "q=0.1", "gaussian:-5,1;laplace:0.5,0.25", eta=8)
    assert cfg.priors == (("gaussian", -5.0, 1.0), ("laplace", 0.5, 0.25)) and cfg.params[1] == 0.1
    assert cfg.model().prior[1].scale == 0.25  # the reference runs the laws asked for
    with pytest.raises(InputError, match="cvrange has 2 state components; give one KIND:A,B each"):
        joint.resolve(spec, None, "gaussian:0,1")


def test_validate_a_reference_dump_and_a_perturbed_one(tmp_path, capsys):
    dump = reference_dump()
    path = tmp_path / "ref.jsonl"
    save_dump(dump, path)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    # the layout of a scalar system's report
    assert "1 step(s) without observation" in out and "within tolerance 1e-09 on every step: OK" in out
    assert "    mean            0.000e+00  (step k=0)" in out  # the reference against itself: no difference
    s = dump.steps[6]
    dump.steps[6] = joint.JointStep(**{**s.__dict__, "mean": (s.mean[0] * (1 + 1e-7), s.mean[1])})
    save_dump(dump, path)
    assert main(["validate", str(path)]) == 1
    assert "FAILED: step k=6 is the first outside tolerance 1e-09 (mean: 1.000e-07)" in capsys.readouterr().out


def test_validate_checks_a_joint_trace_against_the_dump(tmp_path, capsys):
    # --trace must be the trace the dump was made from, row by row, for a vector state as for a scalar one
    dump = reference_dump()
    path, csv = tmp_path / "ref.jsonl", tmp_path / "t.csv"
    save_dump(dump, path)
    spec = joint_systems.spec("pendulum")
    trace = joint.simulate(spec, dump.header.config.params, 10, seed=5)
    trace.z[4] = np.nan
    trace.to_csv(csv)
    assert main(["validate", str(path), "--trace", str(csv)]) == 0
    assert "against the true state: RMSE x0" in capsys.readouterr().out
    trace.z[7, 0] += 1e-3
    trace.to_csv(csv)
    assert main(["validate", str(path), "--trace", str(csv)]) == 2
    err = capsys.readouterr().err
    assert "row 8 (k=7) does not match the dump's step k=7" in err and len(err.strip().splitlines()) == 1


def test_validate_exact_holds_a_joint_dump_to_every_bit(tmp_path, capsys):
    dump = reference_dump()
    path = tmp_path / "ref.jsonl"
    save_dump(dump, path)
    assert main(["validate", str(path), "--exact"]) == 0
    assert "equal bit for bit on every step: OK" in capsys.readouterr().out
    s = dump.steps[4]  # one atom's weight one ulp off: within 1e-9, not equal
    w = list(s.atoms_w)
    w[0] = math.nextafter(w[0], 1.0)
    dump.steps[4] = joint.JointStep(**{**s.__dict__, "atoms_w": tuple(w)})
    save_dump(dump, path)
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()
    assert main(["validate", str(path), "--exact"]) == 1
    assert "FAILED: step k=4 is the first outside tolerance 0 (atom weights:" in capsys.readouterr().out
    assert main(["validate", str(path), "--exact", "--rtol", "1e-6"]) == 2
    assert "--exact" in capsys.readouterr().err


def test_a_cell_filter_dump_validates_against_its_own_reference(tmp_path, capsys):
    """mode cells: the dump's atoms are the cells' means and weights; validate runs the cell filter's reference,
    and refuses --reference step, which would need the cells' covariances, in one line."""
    dump = reference_dump("bearings", eta=8, mode="cells")
    path = tmp_path / "cells.jsonl"
    save_dump(dump, path)
    assert main(["validate", str(path), "--exact"]) == 0
    assert "equal bit for bit on every step: OK" in capsys.readouterr().out
    assert main(["validate", str(path), "--reference", "step"]) == 2
    err = capsys.readouterr().err
    assert "covariances" in err and len(err.strip().splitlines()) == 1
    # the atom filter's dump of the same trace is another run: a cells configuration does not validate it
    other = reference_dump("bearings", eta=8, mode="refined")
    save_dump(joint.JointDump(dump.header, other.steps), path)
    assert main(["validate", str(path)]) == 1


def test_a_joint_system_streams_the_cell_filter_unless_told_otherwise():
    from uxemu.joint_filter import DEFAULT_VECTOR_MODE
    from uxhost.commands import common

    assert common.DEFAULT_VECTOR_MODE == DEFAULT_VECTOR_MODE == "cells"
    spec = joint_systems.spec("bearings")
    assert joint.resolve(spec).mode == "cells" and joint.resolve(spec, mode="paper").mode == "paper"


def test_mode_cells_is_refused_for_a_scalar_system(tmp_path, capsys):
    assert main(["simulate", "--system", "lg", "--steps", "5", "--seed", "1", "-o", str(tmp_path / "lg.csv")]) == 0
    capsys.readouterr()
    out = tmp_path / "out.jsonl"
    assert (
        main(
            [
                "stream",
                str(tmp_path / "lg.csv"),
                "--system",
                "lg",
                "--mode",
                "cells",
                "--port",
                "loop://",
                "-o",
                str(out),
            ]
        )
        == 2
    )
    assert not out.exists()
    err = capsys.readouterr().err
    assert "--mode cells" in err and "joint" in err and len(err.strip().splitlines()) == 1


def test_an_npz_dump_reads_back_bit_for_bit_and_refuses_a_wrong_shape(tmp_path):
    dump = reference_dump(missing=(2, 4))
    path = tmp_path / "d.npz"
    save_dump(dump, path)
    back = load_dump(path)
    assert isinstance(back, joint.JointDump) and back.header == dump.header
    assert [(s.k, s.z, s.x, s.posterior()) for s in back.steps] == [(s.k, s.z, s.x, s.posterior()) for s in dump.steps]
    arrays = dict(np.load(path))
    arrays["cov"] = arrays["cov"][:, :3]  # a 2-D state's covariance needs 4 entries a step
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(DumpError, match="step 0 is not a 2-component posterior"):
        load_dump(tmp_path / "bad.npz")


def test_dump_reads_back_bit_for_bit(tmp_path):
    dump = reference_dump("cvrange", mode="paper")
    path = tmp_path / "d.jsonl"
    save_dump(dump, path)
    back = load_dump(path)
    assert [s.posterior() for s in back.steps] == [s.posterior() for s in dump.steps]
    assert json.loads(path.read_text().splitlines()[0])["format"] == joint.FORMAT


def test_a_joint_dump_is_read_and_refused_as_every_dump(tmp_path):
    # One reader and one error type for every dump: a damaged joint record is a DumpError naming its line.
    path = tmp_path / "d.jsonl"
    save_dump(reference_dump(), path)
    header = path.read_text().splitlines()[0]
    path.write_text(header + '\n{"record": "step", "k": 0}\n')
    with pytest.raises(DumpError, match=r"d.jsonl:2: step record lacks or garbles 'u'"):
        load_dump(path)
    with pytest.raises(DumpError, match=r"d.txt: a dump file must end in .jsonl or .npz"):
        save_dump(reference_dump(), tmp_path / "d.txt")


def test_plot_draws_components_and_atoms(tmp_path, capsys):
    path = tmp_path / "ref.jsonl"
    save_dump(reference_dump(), path)
    png = tmp_path / "p.png"
    assert main(["plot", str(path), "-o", str(png), "--at", "0,9"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["plot", str(path), "-o", str(png), "--at", "10", "--force"]) == 2
    assert "--at 10: the dump has steps 0 … 9" in capsys.readouterr().err


def test_a_joint_dump_is_drawn_with_the_panels_of_a_scalar_one(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from uxhost.plot import plot_dump

    drawn = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *args, **kwargs: drawn.append(fig))
    plot_dump(reference_dump(), tmp_path / "j.png")
    [fig] = drawn
    axes = fig.subfigs[0].axes + fig.subfigs[1].axes
    # a scalar dump's state and observation panels (state x, observation z), one state panel per component;
    # below them the atoms at the first, middle and last step
    assert [ax.get_ylabel() for ax in axes] == ["state x0", "state x1", "observation z", "x1", "x1", "x1"]
    assert [ax.get_title() for ax in axes[3:]] == ["atoms at k=0 (8)", "atoms at k=5 (8)", "atoms at k=9 (8)"]


@pytest.mark.qemu
def test_stream_and_validate_through_qemu(tmp_path, capsys):
    trace = tmp_path / "c.csv"
    assert main(["simulate", "--system", "cvrange", "--steps", "6", "--seed", "1", "-o", str(trace)]) == 0
    dump = tmp_path / "c.jsonl"
    assert main(["stream", str(trace), "--board", "mps2-an500", "--eta", "8", "-o", str(dump)]) == 0
    assert "6 steps, 0 fallback(s)" in capsys.readouterr().out
    assert main(["validate", str(dump), "--trace", str(trace)]) == 0
    assert "on every step: OK" in capsys.readouterr().out
    assert main(["validate", str(dump), "--exact"]) == 0, capsys.readouterr().out
    # the same run as an .npz archive: the same records, bit for bit, and it validates as the JSONL one
    archive = tmp_path / "c.npz"
    assert main(["stream", str(trace), "--board", "mps2-an500", "--eta", "8", "-o", str(archive)]) == 0
    capsys.readouterr()
    a, b = load_dump(archive), load_dump(dump)
    assert [s.posterior() for s in a.steps] == [s.posterior() for s in b.steps]
    assert [(s.k, s.z, s.x) for s in a.steps] == [(s.k, s.z, s.x) for s in b.steps]
    assert main(["validate", str(archive), "--exact", "--trace", str(trace)]) == 0, capsys.readouterr().out


@pytest.mark.qemu
def test_a_cut_short_joint_run_resumes_bit_for_bit(tmp_path, capsys):
    # The first 4 records of a 9-step run (what a killed run leaves) are replayed on a fresh device, every
    # answer equal bit for bit, and the run goes on: the dump then equals the uninterrupted run's.
    trace = tmp_path / "c.csv"
    assert main(["simulate", "--system", "cvrange", "--steps", "9", "--seed", "3", "-o", str(trace)]) == 0
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    assert main(["stream", str(trace), "--board", "mps2-an500", "--eta", "8", "-o", str(whole)]) == 0
    lines = whole.read_text().splitlines(keepends=True)
    cut.write_text("".join(lines[:5]))  # the header and 4 steps
    assert main(["stream", str(trace), "--board", "mps2-an500", "-o", str(cut)]) == 2
    assert f"--resume {cut} to continue it" in capsys.readouterr().err
    assert main(["stream", str(trace), "--board", "mps2-an500", "--resume", str(cut)]) == 0
    assert "resumed: 4 recorded step(s) replayed" in capsys.readouterr().out
    resumed, reference = load_dump(cut), load_dump(whole)
    assert resumed.header.resumed_at == (4,) and len(resumed) == 9
    assert [s.posterior() for s in resumed.steps] == [s.posterior() for s in reference.steps]
    # a recorded posterior the device does not give back: refused, the file untouched
    step = json.loads(lines[3])
    step["mean"][0] = math.nextafter(step["mean"][0], math.inf)
    before = "".join(lines[:3]) + json.dumps(step) + "\n"
    cut.write_text(before)
    assert main(["stream", str(trace), "--board", "mps2-an500", "--resume", str(cut)]) == 2
    assert "answers step k=2 of the replay differently from the dump" in capsys.readouterr().err
    assert cut.read_text() == before


def test_one_reader_reads_a_scalar_and_a_vector_trace_by_the_same_rules(tmp_path):
    scalar, rows = tmp_path / "s.csv", tmp_path / "v.csv"
    scalar.write_text("k,u,z\n0,0,1.5\n1,0,\n")
    rows.write_text("k,u,z0,z1\n0,0,1.5,2.5\n1,0,,\n")
    a, b = load_trace(scalar), load_trace(rows)
    assert (a.z.shape, b.z.shape) == ((2,), (2, 2)) and len(a) == len(b) == 2
    assert a.observation(1) is None and b.observation(1) is None  # an empty z: a step without observation
    # a one-component observation is a row for a vector-state system, whichever header names it
    assert load_trace(scalar, dim_obs=1).z.shape == (2, 1)
    for path, z in ((scalar, "9"), (rows, "9,9")):  # k must grow, in either layout
        path.write_text(path.read_text() + f"1,0,{z}\n")
        with pytest.raises(InputError, match=rf"{path.name}:4: step index k=1 does not follow k=1"):
            load_trace(path)


def test_a_joint_trace_header_is_read_as_written(tmp_path):
    # A spreadsheet's byte-order mark is not part of the first column's name; a column named twice is refused
    # (which copy is meant cannot be told: the last one used to win).
    bom = tmp_path / "bom.csv"
    bom.write_bytes("k,u,z0\n7,0,1.0\n8,0,2.0\n".encode("utf-8-sig"))
    assert load_trace(bom).k.tolist() == [7, 8]
    twice = tmp_path / "twice.csv"
    twice.write_text("k,u,z0,k\n0,0,1.0,7\n")
    with pytest.raises(InputError, match=r"twice.csv:1: the header names column 'k' more than once"):
        load_trace(twice)
