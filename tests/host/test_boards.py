"""Every board folder of boards/ is a board to every verb: `--board` offers each one, derived from the
folders (a board added as a folder needs no other edit), `flash --board` checks a hardware board's image
as it checks an emulated one's, and the verbs that boot QEMU refuse a hardware board with one line."""

import argparse
import shutil
import socket

import pytest

import uxemu
from uxhost import qemu
from uxhost.cli import build_parser
from uxhost.errors import InputError

from cli_run import run_cli


def board_folders(root):
    """The board folders under `root`, read here as the Makefile reads them: the folders with a board.mk."""
    return sorted(p.name for p in root.iterdir() if (p / "board.mk").is_file())


def board_options():
    """{verb: the choices of its --board} for every verb that has a --board option."""
    parser = build_parser()
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    found = {}
    for verb, sub in verbs.items():
        for action in sub._actions:
            if "--board" in action.option_strings:
                found[verb] = sorted(action.choices)
    return found


def hardware_boards():
    """The board folders whose board.mk names no QEMU machine."""
    return [board for board in board_folders(qemu.BOARDS_DIR) if qemu.board_var(board, "QEMU_MACHINE") is None]


def test_every_board_option_offers_every_board_folder():
    folders = board_folders(qemu.BOARDS_DIR)
    assert hardware_boards(), "boards/ has hardware boards beside the QEMU ones"
    options = board_options()
    assert {"flash", "qemu", "demo", "stream", "fit"} <= set(options)
    for verb, choices in options.items():
        assert choices == folders, verb


def test_the_board_list_is_read_from_the_folders(tmp_path, monkeypatch):
    """Derived, not a copy: a folder with a board.mk is a board on every verb at once; shared code is not."""
    (tmp_path / "common").mkdir()
    for name, mk in (
        ("my-board", "BOARD_NAME := my-board\n"),
        ("my-qemu-board", "BOARD_NAME := my-qemu-board\nQEMU_MACHINE := mps2-an500\n"),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "board.mk").write_text(mk)
    monkeypatch.setattr(qemu, "BOARDS_DIR", tmp_path)
    assert qemu.all_boards() == ["my-board", "my-qemu-board"]
    assert qemu.boards() == ["my-qemu-board"]
    for verb, choices in board_options().items():
        assert choices == ["my-board", "my-qemu-board"], verb


def built_image(board):
    path = qemu.image_path(board)
    if not path.is_file():
        pytest.skip(f"no firmware image at {path} (make firmware)")
    return path


def closed_port():
    """A local port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("board", hardware_boards())
def test_flash_takes_a_hardware_board_up_to_the_gdb_server(board, capsys):
    if shutil.which("gdb-multiarch") is None:
        pytest.skip("gdb-multiarch is not installed (make deps)")
    elf = built_image(board)
    port = closed_port()
    code, _, err = run_cli(capsys, "flash", elf, "--gdb", f"127.0.0.1:{port}", "--board", board, "--timeout", "20")
    assert code == 2
    # The board and its image were accepted: what stops it is the missing server, as on a desk without one.
    assert err.startswith(f"uxhost flash: error: could not load {elf} through the GDB server at 127.0.0.1:{port}")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("board", hardware_boards())
def test_flash_refuses_an_image_built_for_another_board_on_a_hardware_board(board, capsys):
    other = next((b for b in qemu.all_boards() if b != board and qemu.image_path(b).is_file()), None)
    if other is None:
        pytest.skip("no firmware image of another board (make firmware)")
    elf = qemu.image_path(other)
    code, _, err = run_cli(capsys, "flash", elf, "--gdb", "127.0.0.1:1", "--board", board)
    assert code == 2
    assert f"was built for board {other}, not {board}" in err
    assert len(err.strip().splitlines()) == 1


def test_the_documented_pyocd_commands_run_up_to_the_probe(capsys):
    """docs/hardware.md's pyOCD commands as written (with a probe id no probe has, so that a board on the
    desk changes nothing): the board, image and target are accepted, and the missing probe is the error —
    or, for a part that needs a CMSIS pack, the pack the user has to fetch (x.y.z: its version)."""
    pytest.importorskip("pyocd")
    doc = (qemu.REPO_ROOT / "docs" / "hardware.md").read_text()
    commands = [
        line[len("$ uxhost ") :].split()
        for line in doc.splitlines()
        if line.startswith("$ uxhost flash") and "--probe pyocd" in line
    ]
    assert commands, "docs/hardware.md shows a pyOCD flash command"
    for argv in commands:
        elf = qemu.REPO_ROOT / argv[1]
        if not elf.is_file():
            pytest.skip(f"no firmware image at {elf} (make firmware)")
        code, _, err = run_cli(capsys, "flash", elf, *argv[2:], "--probe-id", "no-such-probe")
        assert code == 2
        pack = next((argv[i + 1] for i, a in enumerate(argv) if a == "--pack"), None)
        stop = f"CMSIS pack {pack} does not exist" if pack else "no debug probe with id no-such-probe is connected"
        assert err.startswith(f"uxhost flash: error: {stop}"), err
        assert len(err.strip().splitlines()) == 1


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "t.csv"
    uxemu.simulate_many(uxemu.systems.get("gss"), 1, 12, 5)[0].to_csv(path)
    return path


def qemu_runs(board, trace, out):
    """The verbs that boot QEMU, as a user types them with --board."""
    return {
        "qemu": ["qemu", "--board", board],
        "demo": ["demo", "--board", board, "--out", out / "demo"],
        "stream": ["stream", trace, "--board", board, "-o", out / "d.jsonl"],
        "fit": ["fit", trace, "--free", "sigma_v", "--board", board],
    }


@pytest.mark.parametrize("board", hardware_boards())
@pytest.mark.parametrize("verb", ["qemu", "demo", "stream", "fit"])
def test_qemu_verbs_refuse_a_hardware_board_in_one_line(board, verb, trace, tmp_path, capsys, monkeypatch):
    def no_boot(*args, **kwargs):
        raise AssertionError("QEMU must not be started for a hardware board")

    monkeypatch.setattr(qemu, "boot", no_boot)
    code, out, err = run_cli(capsys, *qemu_runs(board, trace, tmp_path)[verb])
    assert code == 2
    assert err.startswith(f"uxhost {verb}: error: {board} is a hardware board: QEMU does not emulate it; ")
    assert len(err.strip().splitlines()) == 1
    if verb in ("stream", "fit"):
        assert "--port" in err  # says how to reach the board instead
    assert not (tmp_path / "d.jsonl").exists() and not (tmp_path / "demo").exists()


def test_require_emulated_names_an_unknown_board():
    with pytest.raises(InputError, match="no board 'no-such-board' in"):
        qemu.require_emulated("no-such-board", "")
