"""PlatformIO, offline: every board has an env, every env builds with `pio run` through the local platform
(any download attempt would fail: the tests route PlatformIO through a dead proxy), `pio test` runs the
custom runner that streams to the env's firmware in QEMU, `pio run -t upload` flashes through `uxhost flash`,
and the example application builds and runs. `scripts/pio` (the project's own core directory) and plain
`pio` as a user types it in the activated venv (a fresh ~/.platformio, no PLATFORMIO_* variables) both work."""

import configparser
import importlib.util
import os
import re
import shutil
import struct
import subprocess
import time

import numpy as np
import pytest
import serial

from uxemu import run_filter, systems
from uxhost import qemu
from uxhost.link import Device

pytestmark = [pytest.mark.pio, pytest.mark.qemu]

ROOT = qemu.REPO_ROOT
PIO = ROOT / "scripts" / "pio"
EXAMPLE = ROOT / "examples" / "sensor-loop"
OWN_MODEL = ROOT / "examples" / "own-model"


VENV_BIN = ROOT / ".venv" / "bin"
# Offline for real: a download would have to go through this proxy, which refuses every connection.
DEAD_PROXY = dict(
    http_proxy="http://127.0.0.1:9",
    https_proxy="http://127.0.0.1:9",
    HTTP_PROXY="http://127.0.0.1:9",
    HTTPS_PROXY="http://127.0.0.1:9",
)


def pio(*args, cwd=ROOT, timeout=600):
    """scripts/pio, the project's `pio` with its own core directory."""
    if not (VENV_BIN / "pio").exists():
        pytest.skip("PlatformIO is not installed in .venv (make venv installs it)")
    env = dict(os.environ, **DEAD_PROXY)
    return subprocess.run([str(PIO), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def user_env(tmp_path_factory):
    """The environment of a user who activated the venv and types `pio`: the venv first on PATH, no
    PLATFORMIO_* variable, a home of its own (so PlatformIO's core directory, ~/.platformio, starts empty)."""
    if not (VENV_BIN / "pio").exists():
        pytest.skip("PlatformIO is not installed in .venv (make venv installs it)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLATFORMIO_")}
    env.update(
        DEAD_PROXY,
        HOME=str(tmp_path_factory.mktemp("home")),
        VIRTUAL_ENV=str(VENV_BIN.parent),
        PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return env


def typed(user_env, *args, cwd=ROOT, timeout=600):
    """`pio ARGS` as typed in the activated venv."""
    return subprocess.run(["pio", *args], cwd=cwd, env=user_env, capture_output=True, text=True, timeout=timeout)


def envs() -> list[str]:
    ini = configparser.ConfigParser()
    ini.read(ROOT / "platformio.ini")
    return [s.split(":", 1)[1] for s in ini.sections() if s.startswith("env:")]


def test_every_board_folder_has_an_env():
    folders = sorted(p.parent.name for p in (ROOT / "boards").glob("*/board.mk"))
    assert sorted(envs()) == folders


def test_pio_run_builds_every_env_offline():
    res = pio("run")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    for env in envs():
        assert re.search(rf"^{re.escape(env)}\s+SUCCESS", res.stdout, re.M), res.stdout[-2000:]
        assert (ROOT / ".pio" / "build" / env / "firmware.elf").is_file()


def test_plain_pio_run_works_offline_with_an_empty_core_directory(user_env):
    """PlatformIO's first build wants its SCons package (tool-scons) in ~/.platformio and would download it
    (offline: an empty `HTTPClientError:` after a minute); the local platform installs its own first."""
    res = typed(user_env, "run", "-e", "nucleo-f767zi")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert re.search(r"^nucleo-f767zi\s+SUCCESS", res.stdout, re.M), res.stdout[-2000:]
    assert "HTTPClientError" not in res.stdout + res.stderr
    scons = os.path.join(user_env["HOME"], ".platformio", "packages", "tool-scons")
    assert "SCons from PyPI" in open(os.path.join(scons, "package.json")).read()


def test_pio_test_streams_to_the_env_firmware_in_qemu(user_env):
    if shutil.which(qemu.QEMU) is None:
        pytest.skip(f"{qemu.QEMU} is not installed (make deps)")
    res = typed(user_env, "test", "-e", "mps2-an500")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "posteriors equal the reference: PASSED" in res.stdout
    assert re.search(r"3 test cases: 3 succeeded", res.stdout), res.stdout[-2000:]


def test_upload_flashes_through_a_gdb_server_with_uxhost_flash(user_env):
    """`pio run -t upload` with upload_protocol = gdb: QEMU halted with an empty flash stands in for a
    probe's GDB server; the image uploaded is the one that answers afterwards."""
    if shutil.which(qemu.QEMU) is None or shutil.which("gdb-multiarch") is None:
        pytest.skip("qemu-system-arm or gdb-multiarch is not installed (make deps)")
    res = typed(user_env, "run", "-e", "mps2-an500", "-t", "upload")
    assert res.returncode != 0
    errors = [line for line in (res.stdout + res.stderr).splitlines() if line.startswith("ux-filter:")]
    assert errors == [errors[0]] and "set upload_port = HOST:PORT" in errors[0], res.stdout[-2000:]
    with qemu.boot("mps2-an500", gdb=True) as instance:
        res = typed(user_env, "run", "-e", "mps2-an500", "-t", "upload", "--upload-port", instance.gdb_address)
        assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
        assert f"through GDB server {instance.gdb_address}" in res.stdout
        assert "verified .vectors, .text, .data" in res.stdout
        with Device.open(instance.url, timeout=10) as device:
            assert device.hello().board == "mps2-an500"


def test_upload_through_pyocd_reaches_the_probe(user_env):
    """upload_protocol = pyocd (the Nucleo envs): `uxhost flash --probe pyocd` with the env's target; with no
    probe plugged in, its one-line error."""
    from pyocd.core.helpers import ConnectHelper

    if ConnectHelper.get_all_connected_probes(blocking=False):
        pytest.skip("a debug probe is connected: this test checks the answer without one")
    res = typed(user_env, "run", "-e", "nucleo-f767zi", "-t", "upload")
    assert res.returncode != 0
    assert "--board nucleo-f767zi --probe pyocd --target stm32f767zi" in res.stdout
    errors = [line for line in (res.stdout + res.stderr).splitlines() if line.startswith("uxhost flash: error:")]
    assert errors == [
        "uxhost flash: error: no debug probe is connected (pyOCD sees none): plug in the board's "
        "USB, check its udev rules, or flash through a GDB server with --gdb"
    ], res.stdout[-2000:]


def test_pio_test_on_a_hardware_board_uploads_then_streams_through_its_port(user_env):
    """On a Nucleo env `pio test` needs the board's serial port (one line naming test_port without it), then
    uploads as `pio run -t upload` does: with no probe plugged in, uxhost flash's one-line error."""
    from pyocd.core.helpers import ConnectHelper

    res = typed(user_env, "test", "-e", "nucleo-f767zi")
    assert res.returncode != 0
    assert (
        "nucleo-f767zi is a hardware board: give its serial port, test_port = /dev/ttyACM0 in the env or "
        "`pio test --test-port PORT`"
    ) in res.stdout + res.stderr
    assert "Building..." not in res.stdout  # refused before anything is built
    if ConnectHelper.get_all_connected_probes(blocking=False):
        pytest.skip("a debug probe is connected: the rest checks the answer without one")
    res = typed(user_env, "test", "-e", "nucleo-f767zi", "--test-port", "/dev/ttyACM0")
    assert res.returncode != 0
    assert "uxhost flash: error: no debug probe is connected" in res.stdout + res.stderr
    assert "uploading failed" in res.stdout + res.stderr and "Testing..." not in res.stdout


def uart_until_done(elf):
    """What the example image at `elf` prints on the mps2-an500's UART, up to its summary line."""
    with qemu.boot("mps2-an500", elf) as instance:
        port = serial.serial_for_url(instance.url, timeout=1)
        text, deadline = "", time.monotonic() + 60
        while "done" not in text or not text.endswith("\n"):
            assert time.monotonic() < deadline, f"no summary line from the example: {text[-500:]!r}"
            text += port.read(4096).decode()
        port.close()
    return text


def test_own_model_example_builds_outside_the_library_and_matches_the_reference(user_env):
    """examples/own-model defines its system in its own src/tea.c (the public ux_model), links the library
    unchanged, and filters on the board; the host's reference engine, given the same system (model.py) and
    the observations the device printed, computes the same posteriors (the C core's contract, 1e-9)."""
    if shutil.which(qemu.QEMU) is None:
        pytest.skip(f"{qemu.QEMU} is not installed (make deps)")
    res = typed(user_env, "run", "-d", str(OWN_MODEL))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    text = uart_until_done(OWN_MODEL / ".pio" / "build" / "mps2-an500" / "firmware.elf")
    steps = [dict(kv.split("=") for kv in line.split()) for line in text.splitlines() if line.startswith("k=")]
    assert [int(s["k"]) for s in steps] == list(range(30)), text[-1000:]
    z, mean, var = (
        np.array(column)
        for column in zip(*([struct.unpack(">d", bytes.fromhex(h))[0] for h in s["bits"].split(",")] for s in steps))
    )
    # The readable columns are the bits, rounded to thousandths.
    assert [int(s["z"]) for s in steps] == [round(v * 1000) for v in z]
    assert [int(s["sd"]) for s in steps] == [round(v**0.5 * 1000) for v in var]

    spec = importlib.util.spec_from_file_location("own_model", OWN_MODEL / "model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reference = run_filter(module.tea(), z, eta=16)
    assert [int(s["status"]) for s in steps] == [int(v) for v in reference.status]
    assert np.max(np.abs(mean - reference.mean) / np.abs(reference.mean)) <= 1e-9
    assert np.max(np.abs(var - reference.var) / reference.var) <= 1e-9
    # And it filters: the summary is the RMSE of the printed means against the printed truth, below the
    # prior's spread (4 degrees).
    rmse = int(re.search(r"done rmse=(\d+)", text).group(1)) / 1000
    errors = [(int(s["mean"]) - int(s["x"])) / 1000 for s in steps]
    assert rmse == pytest.approx((sum(e * e for e in errors) / len(errors)) ** 0.5, abs=2e-3)
    assert rmse < 4.0


def test_example_application_builds_and_filters_on_the_board():
    if shutil.which(qemu.QEMU) is None:
        pytest.skip(f"{qemu.QEMU} is not installed (make deps)")
    res = pio("run", "-d", str(EXAMPLE))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    text = uart_until_done(EXAMPLE / ".pio" / "build" / "mps2-an500" / "firmware.elf")
    steps = [dict(kv.split("=") for kv in line.split()) for line in text.splitlines() if line.startswith("k=")]
    assert [int(s["k"]) for s in steps] == list(range(len(steps))) and len(steps) == 40
    # The summary is the RMSE of the printed means against the printed truth (to print rounding), and the
    # filter does better than its prior's spread (the system table's default prior for gss).
    rmse = int(re.search(r"done rmse=(\d+)", text).group(1)) / 1000
    errors = [(int(s["mean"]) - int(s["x"])) / 1000 for s in steps]
    assert rmse == pytest.approx((sum(e * e for e in errors) / len(errors)) ** 0.5, abs=2e-3)
    assert rmse < systems.spec("gss").prior[2]
    assert all(int(s["sd"]) > 0 for s in steps)
