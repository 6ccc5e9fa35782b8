"""`uxhost plot`: a PNG of the posterior band, with or without cycles and truth."""

import copy

import numpy as np
import pytest
from matplotlib.image import imread

import uxemu
from uxhost.cli import main
from uxhost.config import ModelConfig
from uxhost.dump import save_dump
from uxhost.plot import atom_quantile, plot_dump
from uxhost.validate import reference_dump

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def trace():
    return uxemu.simulate_many(uxemu.systems.get("sv"), 1, 10, 4)[0]


@pytest.fixture
def dump(trace):
    cfg = ModelConfig("sv", (0.98, 0.0, 0.2, 1.0), 8, "refined", "kernel", "gaussian", 0.0, 2.25)
    return reference_dump(cfg, trace)


def test_plot_writes_a_png(dump, tmp_path, capsys):
    save_dump(dump, tmp_path / "d.jsonl")
    out = tmp_path / "sub" / "p.png"
    # A folder that is not there is refused, not made (a mistyped path would hide the plot); and so is a
    # PNG already there, unless --force.
    assert main(["plot", str(tmp_path / "d.jsonl"), "-o", str(out)]) == 2
    assert capsys.readouterr().err.strip().endswith(f"the folder {out.parent} does not exist (no folder is created)")
    assert not out.parent.exists()
    out.parent.mkdir()
    assert main(["plot", str(tmp_path / "d.jsonl"), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}"
    assert out.read_bytes()[:8] == PNG_MAGIC
    image = imread(out)
    assert image.shape[0] > 400 and image.shape[1] > 600
    assert image[..., :3].std() > 0.05  # something was drawn, not a blank canvas
    capsys.readouterr()
    assert main(["plot", str(tmp_path / "d.jsonl"), "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"uxhost plot: error: {out} exists; pass --force to replace it\n"
    assert main(["plot", str(tmp_path / "d.jsonl"), "-o", str(out), "--force"]) == 0


def test_plot_with_cycles_and_trace_truth(dump, trace, tmp_path, capsys):
    with_cycles = copy.deepcopy(dump)
    for i, s in enumerate(with_cycles.steps):
        s.x = None
        s.cycles_predict, s.cycles_update = 1000 + i, 2000 + 3 * i
    with_cycles.header.board, with_cycles.header.cycle_source = "mps2-an500", "qemu-icount"
    save_dump(with_cycles, tmp_path / "d.npz")
    trace.to_csv(tmp_path / "t.csv")
    out = tmp_path / "p.png"
    assert main(["plot", str(tmp_path / "d.npz"), "--trace", str(tmp_path / "t.csv"), "-o", str(out)]) == 0
    plain = tmp_path / "plain.png"
    plot_dump(dump, plain)
    # The cycles panel makes the figure taller.
    assert imread(out).shape[0] > imread(plain).shape[0]


def test_band_quantiles_follow_the_reference_definition(dump):
    for s in dump.steps:
        v = uxemu.Value(np.array(s.atoms_x), np.array(s.atoms_w), 8)
        for q in (0.05, 0.5, 0.95):
            assert atom_quantile(s.atoms_x, s.atoms_w, q) == v.quantile(q)


def test_plot_needs_a_png_name_and_steps(dump, tmp_path, capsys):
    save_dump(dump, tmp_path / "d.jsonl")
    assert main(["plot", str(tmp_path / "d.jsonl"), "-o", str(tmp_path / "p.jpg")]) == 2
    assert "name the file *.png" in capsys.readouterr().err
    dump.steps = []
    save_dump(dump, tmp_path / "e.jsonl")
    assert main(["plot", str(tmp_path / "e.jsonl"), "-o", str(tmp_path / "p.png")]) == 2
    assert "nothing to plot" in capsys.readouterr().err
    assert not (tmp_path / "p.png").exists()


def test_at_is_refused_for_a_scalar_dump(dump, tmp_path, capsys):
    # the atoms' scatter is a vector state's: a scalar dump says so rather than ignore the option
    save_dump(dump, tmp_path / "d.jsonl")
    assert main(["plot", str(tmp_path / "d.jsonl"), "-o", str(tmp_path / "p.png"), "--at", "0"]) == 2
    assert "--at: the atoms' scatter is drawn for a joint system's dump only" in capsys.readouterr().err
    assert not (tmp_path / "p.png").exists()


def test_a_scalar_dump_has_one_state_panel_and_no_atoms_row(dump, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    drawn = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *args, **kwargs: drawn.append(fig))
    plot_dump(dump, tmp_path / "s.png")
    [fig] = drawn
    assert not fig.subfigs and [ax.get_ylabel() for ax in fig.axes] == ["state x", "observation z"]
