"""uxhost.qemu: which image and machine belong to a board, and the errors a user sees when QEMU is
missing or dies at start."""

import os

import pytest

from uxhost import link, qemu

pytestmark = pytest.mark.qemu


def test_boards_and_machines():
    assert {"mps2-an500", "mps2-an386"} <= set(qemu.boards())
    assert qemu.machine_of("mps2-an500") == "mps2-an500"
    assert qemu.image_path("mps2-an386") == qemu.REPO_ROOT / "build" / "mps2-an386" / "firmware.elf"
    with pytest.raises(qemu.QemuError, match="no QEMU machine"):
        qemu.machine_of("no-such-board")


def test_command_line_follows_the_link_design(tmp_path):
    args = qemu.command("mps2-an500", tmp_path / "fw.elf", 4321, icount_shift=6)
    joined = " ".join(args)
    assert "-M mps2-an500" in joined and "-icount shift=6" in joined
    assert "socket,id=link,host=127.0.0.1,port=4321,server=on,wait=on,nodelay=on" in joined
    assert "-serial chardev:link" in joined
    assert "-icount" not in qemu.command("mps2-an500", tmp_path / "fw.elf", 1, icount_shift=None)
    # A guest reset ends QEMU, unless the watchdog's tests ask it to reboot the board.
    assert "-no-reboot" in args
    rebooting = qemu.command("mps2-an500", tmp_path / "fw.elf", 4321, gdb_port=1234, reboot=True)
    assert "-no-reboot" not in rebooting
    # A GDB server beside a running image; without an image, the CPU waits halted for one.
    assert "-kernel" in rebooting and "tcp:127.0.0.1:1234" in rebooting and "-S" not in rebooting
    paused = qemu.command("mps2-an500", None, 4321, gdb_port=1234)
    assert "-kernel" not in paused and "-S" in paused and "tcp:127.0.0.1:1234" in paused


def test_machine_settings_come_from_board_mk(tmp_path, monkeypatch):
    board = tmp_path / "boards" / "uart2-board"
    board.mkdir(parents=True)
    (board / "board.mk").write_text(
        "QEMU_MACHINE := some-machine\nQEMU_CPU_HZ := 50000000\n" "QEMU_SERIAL_INDEX := 2\n"
    )
    monkeypatch.setattr(qemu, "BOARDS_DIR", tmp_path / "boards")
    args = qemu.command("uart2-board", tmp_path / "fw.elf", 4321)
    # The host UART is the third -serial: the two before it are null.
    serials = [args[i + 1] for i, a in enumerate(args) if a == "-serial"]
    assert serials == ["null", "null", "chardev:link"] and "-nic" not in args
    assert qemu.instructions_of(50 * 64, icount_shift=6, board="uart2-board") == 1000
    (board / "board.mk").write_text("QEMU_MACHINE := some-machine\n")
    with pytest.raises(qemu.QemuError, match="no QEMU_CPU_HZ"):
        qemu.cpu_hz("uart2-board")


def test_boot_gives_a_url_and_close_reaps_qemu(board, image):
    with qemu.boot(board, image) as instance:
        assert instance.url == f"socket://127.0.0.1:{instance.port}"
        with link.Device.open(instance.url, timeout=10) as dev:
            assert dev.hello().board == board
        # An unused on-board NIC has a peer (Debian's QEMU has the user-mode backend), a board without
        # one is given none: nothing to warn about.
        has_nic = qemu._board_var(board, "QEMU_ONBOARD_NIC") is not None
        assert qemu._nic_args(qemu.QEMU, board) == (("-nic", "user,restrict=on,ipv6=off") if has_nic else ())
        assert "warning" not in instance.stderr()
        pid = instance.process.pid
    assert instance.process.returncode is not None  # waited for: no zombie
    assert not os.path.exists(f"/proc/{pid}") or "Z" not in open(f"/proc/{pid}/stat").read().split()[2]


def test_missing_qemu_is_a_clear_error(monkeypatch, image):
    monkeypatch.setattr(qemu, "QEMU", "qemu-system-arm-not-installed")
    with pytest.raises(qemu.QemuError, match="not found.*make deps"):
        qemu.boot("mps2-an500", image)


def test_missing_image_names_make_firmware(tmp_path):
    with pytest.raises(qemu.QemuError, match="make firmware"):
        qemu.boot("mps2-an500", tmp_path / "absent.elf")


def test_image_qemu_cannot_load_is_refused(tmp_path):
    bogus = tmp_path / "not-an-image.elf"
    bogus.write_bytes(b"\x7fELF this is not a loadable image" + bytes(40))
    with pytest.raises(qemu.QemuError, match="not a 32-bit little-endian ELF"):
        qemu.boot("mps2-an500", bogus)
    (tmp_path / "host.elf").write_bytes(open("/bin/true", "rb").read())
    with pytest.raises(qemu.QemuError, match="not ARM|not a 32-bit"):
        qemu.boot("mps2-an500", tmp_path / "host.elf")


def test_qemu_dying_at_start_reports_its_stderr(monkeypatch, image):
    monkeypatch.setattr(qemu, "machine_of", lambda board: "no-such-machine")
    with pytest.raises(qemu.QemuError, match="failed to start: .*unsupported machine type"):
        qemu.boot("mps2-an500", image)


def test_check_reports_an_exited_qemu(board, image):
    instance = qemu.boot(board, image)
    try:
        instance.check()
        instance.process.kill()
        instance.process.wait()
        with pytest.raises(qemu.QemuError, match="exited with code"):
            instance.check()
    finally:
        instance.close()
