"""`uxhost check`: the report on every QEMU board (booted, and flashed through QEMU's GDB server), the verdicts a
device can earn over a port (a scripted device with the reference as its firmware: right, another board,
another C core, wrong answers, lost mid-run, silent), what the report says about time, and the inputs refused
before any device is touched, each as one line."""

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from uxemu import joint_systems
from uxhost import protocol as p
from uxhost import qemu
from uxhost.check import core_clock, firmware_core_version, stack_high_water, timing
from uxhost.versions import core_version

from cli_run import run_cli
from peers import ReferenceDevice
from qemu_image import qemu_image

SCALAR = ("sv", "gss", "cubic", "lg")  # the reference device's systems (uxemu.systems.SPECS)


def rows(report: str) -> dict:
    """The systems table of a report: system name -> its cells."""
    out = {}
    in_table = False
    for line in report.splitlines():
        if line.startswith("| system |"):
            in_table = True
            continue
        if in_table and line.startswith("|---"):
            continue
        if in_table and line.startswith("| "):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            out[cells[0]] = cells
        elif in_table:
            break
    return out


def device_systems(board):
    """The systems the firmware of `board` has: the joint ones only where it is built with them."""
    joint = (
        "-DAPP_JOINT=0" not in (qemu.board_var(board, "BOARD_DEFS") or "")
        and "-DAPP_JOINT=0" not in (qemu.BOARDS_DIR / board / "board.mk").read_text()
    )
    return [*SCALAR, *(joint_systems.names() if joint else ())]


# -- every QEMU board ------------------------------------------------------------------------------


@pytest.mark.qemu
@pytest.mark.parametrize("board", qemu.boards())
def test_check_passes_on_every_qemu_board(board, tmp_path, capsys):
    qemu_image(board)
    out = tmp_path / "check.md"
    code, stdout, err = run_cli(capsys, "check", "--board", board, "-o", out)
    report = out.read_text()
    assert code == 0, report + err
    assert stdout.startswith(f"PASS: {board}, ") and f"report written to {out}" in stdout
    assert report.startswith(f"# ux-filter board check: {board} — PASS\n")
    assert f"| board reported | {board} (match) |" in report
    assert f"this host's {core_version()}: match" in report
    assert f"| protocol | {p.PROTOCOL_VERSION} (this host: {p.PROTOCOL_VERSION}) |" in report
    assert f"| last reset | {qemu.board_var(board, 'QEMU_RESET_CAUSE')} |" in report
    assert "| stack high-water | not reported by this firmware |" in report
    table = rows(report)
    assert list(table) == device_systems(board)
    eta = min(16, int(qemu.board_var(board, "BOARD_MAX_ETA")))
    for name, cells in table.items():
        system, kind, row_eta, steps, verdict, cost, instructions, us, detail = cells
        assert (row_eta, steps, verdict) == (str(eta), "50", "OK"), cells
        median, largest = (int(v.replace(",", "")) for v in cost.split(", "))
        assert 0 < median <= largest
        # Virtual cycles are instructions times 2^6 ns × the machine's SysTick clock; no µs for QEMU.
        per = 64e-9 * int(qemu.board_var(board, "QEMU_CPU_HZ"))
        assert int(instructions.replace(",", "")) == pytest.approx(median / per, abs=1)
        assert us == "—"
        assert detail.startswith("largest relative difference")
    assert f"{64e-9 * int(qemu.board_var(board, 'QEMU_CPU_HZ')):g} per instruction executed" in report
    assert "no µs are given" in report


@pytest.mark.qemu
def test_check_flashes_through_qemus_gdb_server_and_reports_to_stdout(capsys):
    elf = qemu_image("mps2-an500")
    if shutil.which("gdb-multiarch") is None:
        pytest.skip("gdb-multiarch is not installed (make deps)")
    code, stdout, err = run_cli(capsys, "check", "--board", "mps2-an500", "--flash", elf, "--steps", 5, "--eta", 4)
    assert code == 0, stdout + err
    assert stdout.startswith("# ux-filter board check: mps2-an500 — PASS\n")
    assert re.search(
        rf"\| flashed \| flashed {re.escape(str(elf))} \(\d+ bytes\) through GDB server 127\.0\.0\.1:\d+ "
        r"in [\d.]+ s; verified \.vectors, \.text, \.data \|",
        stdout,
    ), stdout
    assert "booted with an empty flash" in stdout
    assert {cells[2:5] == ["4", "5", "OK"] for cells in rows(stdout).values()} == {True}


@pytest.mark.qemu
def test_check_flashes_a_board_at_a_port_through_its_gdb_server(capsys):
    """The hardware flow with QEMU as the board on the desk: a halted board with a GDB server (the probe's) and a
    serial port; the check loads the image through the server, then checks the board at the port."""
    elf = qemu_image("mps2-an500")
    if shutil.which("gdb-multiarch") is None:
        pytest.skip("gdb-multiarch is not installed (make deps)")
    server = subprocess.Popen(
        [sys.executable, "-m", "uxhost", "qemu", "--board", "mps2-an500", "--gdb"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url, gdb = server.stdout.readline().strip(), server.stdout.readline().strip()
        code, report, err = run_cli(
            capsys,
            "check",
            "--board",
            "mps2-an500",
            "--port",
            url,
            "--flash",
            elf,
            "--gdb",
            gdb,
            "--steps",
            5,
            "--eta",
            4,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert code == 0, report + err
    assert f"| reached | {url} |" in report
    assert f"through GDB server {gdb} in " in report and "verified .vectors, .text, .data |" in report
    assert {cells[4] for cells in rows(report).values()} == {"OK"}


# -- verdicts over a port --------------------------------------------------------------------------


class BoardDevice(ReferenceDevice):
    """The reference device posing as `board` with firmware `fw`; for the system configured `skew_system`-th (0 =
    the first) it answers step k=3 with `skew` added to the mean and, if `status` is given, that status."""

    def __init__(
        self,
        board="mps2-an500",
        fw=None,
        skew=0.0,
        skew_system=None,
        status=None,
        own_system=False,
        cycle_source=p.CycleSource.HOST_NS,
        **kw,
    ):
        self.board, self.fw, self.own_system = board, fw or f"{core_version()}+test", own_system
        self.cycle_source = cycle_source
        self.skew, self.skew_system, self.status, self.configured = skew, skew_system, status, -1
        super().__init__(**kw)

    def _answer(self, message):
        if self.own_system and isinstance(message, p.Describe) and message.index == len(SCALAR):
            # A system only this firmware has: the host has no model to simulate it.
            return p.System(
                40,
                "mine",
                "a system of the firmware's own",
                1,
                1,
                (("a", 1.0, p.ParamDomain.REAL),),
                ((p.PriorKind.GAUSSIAN, 0.0, 1.0),),
            )
        answer = super()._answer(message)
        if isinstance(answer, p.Info):
            return dataclasses.replace(
                answer,
                board=self.board,
                fw_version=self.fw,
                cycle_source=self.cycle_source,
                n_systems=answer.n_systems + self.own_system,
            )
        if isinstance(message, p.Configure) and isinstance(answer, p.Configured):
            self.configured += 1
        if isinstance(answer, p.Posterior) and self.configured == self.skew_system and message.k == 3:
            return dataclasses.replace(
                answer, mean=(answer.mean[0] + self.skew,), status=answer.status if self.status is None else self.status
            )
        return answer


@pytest.fixture
def board_device():
    made = []

    def make(**kw):
        made.append(BoardDevice(**kw))
        return made[-1]

    yield make
    for d in made:
        d.close()


def check_port(capsys, device, *extra, board="mps2-an500"):
    return run_cli(
        capsys, "check", "--board", board, "--port", device.url, "--steps", 8, "--eta", 4, "--timeout", 5, *extra
    )


def test_a_right_device_passes_with_microseconds_from_its_clock(board_device, capsys):
    device = board_device()
    code, report, err = check_port(capsys, device)
    assert code == 0, report + err
    assert "— PASS" in report.splitlines()[0]
    table = rows(report)
    assert list(table) == list(SCALAR)
    for cells in table.values():
        # HOST_NS counts are nanoseconds: µs = median / 1000, from the same cells.
        system, kind, eta, steps, verdict, cost, us, detail = cells
        assert (eta, steps, verdict) == ("4", "8", "OK")
        median = float(cost.split(", ")[0].replace(",", ""))
        assert float(us.replace(",", "")) == pytest.approx(median / 1000, abs=0.051)
    assert "Nanoseconds of the host's clock" in report


def test_a_system_only_the_firmware_has_is_listed_not_checked(board_device, capsys):
    code, report, _ = check_port(capsys, board_device(own_system=True))
    assert code == 0, report
    cells = rows(report)["mine"]
    assert cells[2:5] == ["—", "—", "not checked"] and "no model to simulate its standard trace" in cells[-1]
    assert [rows(report)[s][4] for s in SCALAR] == ["OK"] * 4


def test_a_system_that_exists_only_in_c_is_listed_not_checked(board_device, monkeypatch, capsys):
    import uxemu

    monkeypatch.delitem(uxemu.systems.TWINS, "lg")  # as a system added in C only: in the table, no twin
    device = board_device()
    code, report, _ = check_port(capsys, device)
    assert code == 0, report
    cells = rows(report)["lg"]
    assert cells[4] == "not checked" and "no Python twin to simulate its standard trace from" in cells[-1]
    assert not any(isinstance(m, p.Configure) and m.system == uxemu.systems.SPECS["lg"].id for m in device.requests)


def test_a_device_of_another_protocol_fails_at_hello(capsys):
    device = ReferenceDevice(protocol=p.PROTOCOL_VERSION - 1)
    try:
        code, report, _ = run_cli(capsys, "check", "--board", "mps2-an500", "--port", device.url)
    finally:
        device.close()
    assert code == 1
    assert f"- HELLO: device at {device.url} speaks protocol {p.PROTOCOL_VERSION - 1}" in report
    assert not any(isinstance(m, p.Configure) for m in device.requests)


def test_a_watchdog_reset_before_the_check_is_noted(board_device, capsys):
    code, report, _ = check_port(capsys, board_device(reset_cause=p.ResetCause.WATCHDOG))
    assert code == 0, report
    assert "| last reset | watchdog |" in report
    assert "- the board last started after a watchdog reset: it stopped before this check started" in report


def test_a_hardware_boards_cycles_are_timed_at_its_boards_clock(board_device, capsys):
    # A Nucleo-F767ZI at a port, its counts DWT cycles (the reference device's ns, read as cycles): µs at the
    # 216 MHz of BOARD_CORE_HZ in boards/nucleo-f767zi/board.mk, since this device's INFO reports no clock (0).
    device = board_device(board="nucleo-f767zi", cycle_source=p.CycleSource.DWT)
    code, report, _ = check_port(capsys, device, board="nucleo-f767zi")
    assert code == 0, report
    assert "| cycle counter | DWT CYCCNT: cycles |" in report and "| cycles/step (median, max) |" in report
    assert (
        "µs at the core clock 216 MHz (BOARD_CORE_HZ of boards/nucleo-f767zi/board.mk; INFO reports no clock)" in report
    )
    for system, kind, eta, steps, verdict, cost, us, detail in rows(report).values():
        median = float(cost.split(", ")[0].replace(",", ""))
        assert float(us.replace(",", "")) == pytest.approx(median / 216, abs=0.051)


def test_another_board_fails_before_anything_is_configured(board_device, capsys):
    device = board_device(board="nucleo-f767zi")
    code, report, _ = check_port(capsys, device)
    assert code == 1
    assert report.startswith("# ux-filter board check: mps2-an500 — FAIL")
    assert "| board reported | nucleo-f767zi (**another board**) |" in report
    assert "- the device reports board 'nucleo-f767zi', not the mps2-an500 asked for: nothing was configured" in report
    assert not any(isinstance(m, p.Configure) for m in device.requests)
    assert not rows(report)


def test_firmware_of_another_c_core_fails(board_device, capsys):
    device = board_device(fw="0.0.1+abc1234")
    code, report, _ = check_port(capsys, device)
    assert code == 1
    assert f"the firmware was built from C core 0.0.1, this host is C core {core_version()}" in report
    assert "(C core 0.0.1; this host's" in report and "**differs**" in report
    assert [cells[4] for cells in rows(report).values()] == ["OK"] * 4  # checked all the same: how far it agrees
    assert report.splitlines()[0].endswith("— FAIL")


def test_a_firmware_without_a_core_version_is_noted_not_failed(board_device, capsys):
    code, report, _ = check_port(capsys, board_device(fw="unversioned"))
    assert code == 0, report
    assert "the firmware's version 'unversioned' names no C core version" in report


@pytest.mark.parametrize("skew, verdict", [(1e-6, "FAIL"), (0.0, "OK")])
def test_a_wrong_posterior_fails_its_system_only(skew, verdict, board_device, capsys):
    # The second system (gss) answers step k=3 with its mean moved by `skew`: beyond 1e-9 of the reference, it fails.
    device = board_device(skew=skew, skew_system=1)
    code, report, _ = check_port(capsys, device)
    table = rows(report)
    assert table["gss"][4] == (f"**{verdict}**" if verdict == "FAIL" else verdict)
    assert [table[s][4] for s in ("sv", "cubic", "lg")] == ["OK"] * 3
    if verdict == "FAIL":
        assert code == 1 and "step k=3: mean differs by" in table["gss"][-1]
        assert "- gss: step k=3: mean differs by" in report
    else:
        assert code == 0


def test_a_status_the_reference_does_not_give_is_named(board_device, capsys):
    code, report, _ = check_port(capsys, board_device(skew_system=2, status=p.Status.OUTLIER))
    assert code == 1
    assert rows(report)["cubic"][-1] == "step k=3: status OUTLIER from the device, OK from the reference"


def test_a_device_lost_mid_run_is_a_failed_report(board_device, capsys):
    device = board_device(die_after=12)  # sv's 8 steps, then 4 of gss
    code, report, err = check_port(capsys, device)
    assert code == 1
    table = rows(report)
    assert table["sv"][4] == "OK" and table["gss"][4] == "**FAIL**"
    assert "at step k=4" in table["gss"][-1]
    assert "the device stopped answering during gss; not run: cubic, lg" in report
    assert "Traceback" not in err


def test_a_silent_device_is_a_failed_report(capsys):
    device = ReferenceDevice(silent=True)
    try:
        code, report, _ = run_cli(
            capsys, "check", "--board", "mps2-an500", "--port", device.url, "--timeout", 0.2, "--retries", 0
        )
    finally:
        device.close()
    assert code == 1
    assert "- HELLO: device at" in report and "did not answer HELLO" in report
    assert "| board reported |" not in report


def test_the_report_file_is_refused_when_it_exists_unless_forced(board_device, tmp_path, capsys):
    out = tmp_path / "r.md"
    out.write_text("kept")
    code, _, err = check_port(capsys, board_device(), "-o", out)
    assert code == 2 and err == f"uxhost check: error: {out} exists; pass --force to replace it\n"
    assert out.read_text() == "kept"
    code, stdout, _ = check_port(capsys, board_device(), "-o", out, "--force")
    assert code == 0 and stdout.startswith("PASS: mps2-an500, 4 system(s) streamed and validated, 32 steps")
    assert out.read_text().startswith("# ux-filter board check: mps2-an500 — PASS")


def test_the_dumps_are_kept_where_asked_and_validate_replays_them(board_device, tmp_path, capsys):
    dumps = tmp_path / "dumps"
    code, _, err = check_port(capsys, board_device(), "--dumps", dumps)
    assert f"--dumps {dumps} does not exist (no folder is created)" in one_error_line(err, code)
    dumps.mkdir()
    code, report, _ = check_port(capsys, board_device(), "--dumps", dumps)
    assert code == 0, report
    assert f"| dumps | {dumps / 'SYSTEM.jsonl'} (`uxhost validate` replays one) |" in report
    assert sorted(p.name for p in dumps.iterdir()) == sorted(f"{s}.jsonl" for s in SCALAR)
    code, out, _ = run_cli(capsys, "validate", dumps / "gss.jsonl")
    assert code == 0 and "8 steps of gss, η=4" in out and "on every step: OK" in out
    code, _, err = check_port(capsys, board_device(), "--dumps", dumps)
    assert f"--dumps {dumps} holds dumps already (cubic.jsonl, gss.jsonl, lg.jsonl, …); pass --force" in one_error_line(
        err, code
    )
    code, _, _ = check_port(capsys, board_device(), "--dumps", dumps, "--force")
    assert code == 0


# -- time, clock and stack -------------------------------------------------------------------------


def info(**kw):
    base = dict(
        protocol=p.PROTOCOL_VERSION,
        max_eta=64,
        real_bytes=8,
        cycle_source=p.CycleSource.DWT,
        reset_cause=p.ResetCause.POWER_ON,
        board="nucleo-f767zi",
        fw_version="0.2.0+x",
        n_systems=6,
    )
    return p.Info(**{**base, **kw})


@dataclasses.dataclass(frozen=True)
class LaterInfo(p.Info):
    """An INFO as a later firmware may send it, with a stack high-water mark."""

    stack_high_water: int = 0


def test_dwt_cycles_become_microseconds_at_the_boards_clock():
    t = timing(info(), "nucleo-f767zi")
    assert t.unit == "cycles" and t.per_us == 216.0  # BOARD_CORE_HZ of boards/nucleo-f767zi/board.mk
    assert "BOARD_CORE_HZ of boards/nucleo-f767zi/board.mk; INFO reports no clock" in t.notes[0]


def test_a_clock_in_info_comes_before_the_boards():
    later = LaterInfo(**dataclasses.asdict(info(core_hz=168_000_000)), stack_high_water=5120)
    assert core_clock(later, "nucleo-f767zi") == (168e6, "INFO core_hz")
    assert timing(later, "nucleo-f767zi").per_us == 168.0
    assert stack_high_water(later) == "5,120 bytes (INFO stack_high_water)"
    assert stack_high_water(info()) == "not reported by this firmware"


def test_no_clock_no_microseconds(tmp_path, monkeypatch):
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "board.mk").write_text("BOARD_NAME := bare\n")
    monkeypatch.setattr(qemu, "BOARDS_DIR", tmp_path)
    t = timing(info(board="bare"), "bare")
    assert t.per_us is None and t.unit == "cycles"
    assert "INFO reports no core clock and boards/bare/board.mk gives no BOARD_CORE_HZ" in t.notes[0]


def test_qemu_counts_are_instructions_not_time():
    t = timing(info(cycle_source=p.CycleSource.SYSTICK_ICOUNT, board="mps2-an500"), "mps2-an500")
    assert t.unit == "virtual cycles" and t.per_us is None and t.per_instruction == pytest.approx(1.6)
    assert "shift assumed to be uxhost's default" in t.notes[0]  # no QEMU of ours: the shift is not known


@pytest.mark.parametrize(
    "fw, core",
    [
        ("0.2.0+cbe339a-dirty", "0.2.0"),
        ("1.10+abc", "1.10"),
        ("unversioned", None),
        ("0.2.0", None),
        ("x.y+z", None),
        ("fuzz", None),
    ],
)
def test_the_c_core_version_a_firmware_names(fw, core):
    assert firmware_core_version(fw) == core


# -- refused before any device ---------------------------------------------------------------------


def one_error_line(err: str, code: int) -> str:
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("uxhost check: error: "), err
    return err


def test_an_unknown_board_is_refused_with_the_boards_there_are(capsys):
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "check", "--board", "nope")
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert exc.value.code == 2 and lines[0].startswith("usage: uxhost check") and "Traceback" not in err
    assert lines[-1].startswith("uxhost check: error: argument --board: invalid choice: 'nope' (choose from")
    assert all(board in lines[-1] for board in qemu.all_boards())


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--board", "nucleo-f767zi"], "nucleo-f767zi is a hardware board: QEMU does not emulate it; pass --port"),
        (["--board", "mps2-an500", "--gdb", "127.0.0.1:3333"], "--gdb flashes a board at --port"),
        (["--board", "mps2-an500", "--port", "loop://", "--elf", "x.elf"], "--elf is the image QEMU boots"),
        (
            ["--board", "mps2-an500", "--port", "loop://", "--probe", "pyocd"],
            "--probe: which image? pass --flash IMAGE",
        ),
        (
            ["--board", "mps2-an500", "--port", "loop://", "--target", "stm32f767zi"],
            "--target: only with --probe pyocd",
        ),
        (["--board", "mps2-an500", "--flash", "missing.elf"], "firmware image missing.elf does not exist"),
        (["--board", "mps2-an500", "--elf", "missing.elf"], "firmware image missing.elf does not exist"),
        (["--board", "mps2-an500", "-o", "no/such/folder/r.md"], "the folder no/such/folder does not exist"),
    ],
)
def test_bad_inputs_are_one_line(argv, says, capsys):
    code, stdout, err = run_cli(capsys, "check", *argv)
    assert says in one_error_line(err, code)
    assert stdout == ""


def test_flash_with_a_port_needs_a_way_to_flash(tmp_path, capsys):
    image = tmp_path / "fw.elf"
    image.write_bytes(b"\x7fELF")
    code, _, err = run_cli(capsys, "check", "--board", "nucleo-f767zi", "--port", "loop://", "--flash", image)
    assert "--flash with --port: how? pass --gdb HOST:PORT" in one_error_line(err, code)


def test_an_image_for_another_board_is_not_flashed(capsys):
    elf = qemu.image_path("mps2-an500")
    if not elf.is_file():
        pytest.skip(f"no firmware image at {elf} (make firmware)")
    code, _, err = run_cli(capsys, "check", "--board", "mps2-an386", "--flash", elf)
    assert f"{elf} was built for board mps2-an500, not mps2-an386" in one_error_line(err, code)


def test_a_report_folder_that_cannot_be_written_is_refused_first(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as a user who writes anywhere (root)")
        code, _, err = run_cli(capsys, "check", "--board", "mps2-an500", "--port", "loop://", "-o", folder / "r.md")
        assert f"{folder / 'r.md'}: the folder {folder} is not writable" in one_error_line(err, code)
    finally:
        folder.chmod(0o755)


def test_a_port_that_cannot_be_opened_is_one_line(capsys):
    code, _, err = run_cli(capsys, "check", "--board", "mps2-an500", "--port", "/dev/nonexistent-uxhost-port")
    assert "cannot open /dev/nonexistent-uxhost-port" in one_error_line(err, code)


# -- docs/hardware.md's commands, as written --------------------------------------------------------


def documented_checks():
    doc = (qemu.REPO_ROOT / "docs" / "hardware.md").read_text()
    return [
        line[len("$ uxhost ") :].split("#")[0].split() for line in doc.splitlines() if line.startswith("$ uxhost check")
    ]


def test_the_documented_hardware_checks_run_up_to_the_board(tmp_path, monkeypatch, capsys):
    """Each `uxhost check` of a hardware board in docs/hardware.md, as written (a probe id no probe has, so that a
    board on the desk changes nothing): the options are accepted, and what stops it is the missing board, the
    probe or its server — the first thing the command touches — in one line."""
    commands = [argv for argv in documented_checks() if not qemu.emulated(argv[argv.index("--board") + 1])]
    assert len(commands) >= 3, "docs/hardware.md shows a check over a port, with pyOCD and through a GDB server"
    (tmp_path / "build").symlink_to(qemu.BUILD_DIR)
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        if "--flash" in argv and not Path(argv[argv.index("--flash") + 1]).is_file():
            pytest.skip(f"no firmware image at {argv[argv.index('--flash') + 1]} (make firmware)")
        if "--probe" in argv:
            pytest.importorskip("pyocd")
            argv = [*argv, "--probe-id", "no-such-probe"]
        code, _, err = run_cli(capsys, *argv)
        if "--probe" in argv:
            stop = "no debug probe with id no-such-probe is connected"
        elif "--gdb" in argv:
            stop = f"could not load {argv[argv.index('--flash') + 1]} through the GDB server at"
            if shutil.which("gdb-multiarch") is None:
                stop = "gdb-multiarch not found"
        else:
            stop = f"cannot open {argv[argv.index('--port') + 1]}"
        assert stop in one_error_line(err, code), argv
        assert not (tmp_path / "check.md").exists()


@pytest.mark.qemu
def test_the_documented_qemu_check_writes_its_report(tmp_path, monkeypatch, capsys):
    argv = next(a for a in documented_checks() if a[a.index("--board") + 1] == "mps2-an500" and "-o" in a)
    qemu_image("mps2-an500")
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run_cli(capsys, *argv)
    out = tmp_path / argv[argv.index("-o") + 1]
    assert code == 0, err
    n = len(device_systems("mps2-an500"))
    assert (
        stdout
        == f"PASS: mps2-an500, {n} system(s) streamed and validated, {50 * n} steps; report written to {out.name}\n"
    )
    assert out.read_text().startswith("# ux-filter board check: mps2-an500 — PASS")
