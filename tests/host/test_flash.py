"""`uxhost flash --gdb` through QEMU's GDB server — the path a probe's GDB server (OpenOCD, pyOCD,
J-Link) takes on hardware: QEMU boots with an empty flash, the image is loaded and verified over GDB, then
a trace is streamed to it and validated. And the failures a user meets first, each a one-line error."""

import shutil
import subprocess
import sys

import pytest

import uxemu
from uxhost import qemu
from uxhost.cli import main
from uxhost.link import Device

pytestmark = pytest.mark.qemu


def image(board):
    if shutil.which(qemu.QEMU) is None or shutil.which("gdb-multiarch") is None:
        pytest.skip("qemu-system-arm or gdb-multiarch is not installed (make deps)")
    path = qemu.image_path(board)
    if not path.is_file():
        pytest.skip(f"no firmware image at {path} (make firmware)")
    return path


@pytest.mark.parametrize("board", qemu.boards())
def test_flash_through_gdb_then_stream_and_validate(board, tmp_path, capsys):
    elf = image(board)
    server = subprocess.Popen(
        [sys.executable, "-m", "uxhost", "qemu", "--board", board, "--gdb"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url, gdb = server.stdout.readline().strip(), server.stdout.readline().strip()
        assert url.startswith("socket://") and ":" in gdb
        code = main(["flash", str(elf), "--gdb", gdb, "--board", board])
        out = capsys.readouterr().out
        assert code == 0, out
        assert f"through GDB server {gdb}" in out
        # every loadable section is read back (an image may hold more, e.g. .ARM.exidx from libgcc)
        verified = out.rsplit("verified ", 1)[1].strip().split(", ")
        assert {".vectors", ".text", ".data"} <= set(verified), out

        trace = tmp_path / "t.csv"
        uxemu.simulate_many(uxemu.systems.get("gss"), 1, 12, 5)[0].to_csv(trace)
        dump = tmp_path / "d.jsonl"
        assert main(["stream", str(trace), "--port", url, "--expect-board", board, "--eta", "8", "-o", str(dump)]) == 0
        assert main(["validate", str(dump)]) == 0
        assert "on every step: OK" in capsys.readouterr().out
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_flash_refuses_an_image_for_another_board(capsys):
    elf = image("mps2-an500")
    code = main(["flash", str(elf), "--gdb", "127.0.0.1:1", "--board", "mps2-an386"])
    assert code == 2
    assert "was built for board mps2-an500, not mps2-an386" in capsys.readouterr().err


def test_no_gdb_server_is_a_one_line_error_within_seconds(capsys):
    elf = image("mps2-an500")
    with qemu.boot("mps2-an500", gdb=True) as instance:  # a real port, then closed: nobody listens there
        port = instance.gdb_port
    code = main(["flash", str(elf), "--gdb", f"127.0.0.1:{port}", "--timeout", "20"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"uxhost flash: error: could not load {elf} through the GDB server at 127.0.0.1:{port}")
    # Refused at once (gdb retries nothing), not "did not finish within 20 s": the error comes in seconds.
    assert "connection refused" in err.lower()
    assert len(err.strip().splitlines()) == 1


def test_the_flashed_image_is_the_one_that_runs():
    """Flashing replaces what the target held: a second, different load is what answers afterwards."""
    an500 = image("mps2-an500")
    from uxhost.flash import flash_gdb

    with qemu.boot("mps2-an500", gdb=True) as instance:
        result = flash_gdb(an500, instance.gdb_address)
        assert result.load_bytes > 0 and result.sections[0] == ".vectors"
        with Device.open(instance.url, timeout=5) as device:
            assert device.hello().board == "mps2-an500"
