"""`uxhost fit --port/--board`: the log-likelihood the device computes, maximised by the host's search.

Oracles: a device whose arithmetic is the host's double precision — the reference device on a socket, the
mps2-an500 firmware in QEMU — gives the native fit bit for bit (every run's log-likelihood is the same
number, so Nelder–Mead walks the same path); the M4F firmware (single precision) lands within a twentieth
of a standard error of it (measured: 0.003). And every way a device fit can go wrong is one line."""

import json
import shutil

import pytest

from uxhost import qemu
from uxhost.cli import main

from cli_run import run_cli

FIT = ("--free", "r", "--eta", 4)


@pytest.fixture(scope="module")
def lg_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("fit-device") / "lg.csv"
    assert main(["simulate", "--system", "lg", "--steps", "60", "--seed", "2", "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def on_host(lg_csv, tmp_path_factory):
    """The same fit with the native engine: the oracle."""
    out = tmp_path_factory.mktemp("fit-host") / "fit.json"
    assert main(["fit", str(lg_csv), *map(str, FIT), "--engine", "native", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def same_fit(got, oracle):
    for key in ("estimate", "stderr", "log_likelihood", "evaluations", "roughness", "params"):
        assert got[key] == oracle[key], key


def test_a_device_in_double_precision_gives_the_host_fit_bit_for_bit(device, lg_csv, on_host, tmp_path, capsys):
    dev, out = device(), tmp_path / "fit.json"
    code, stdout, err = run_cli(capsys, "fit", lg_csv, *FIT, "--port", dev.url, "--json", out)
    assert code == 0, err
    result = json.loads(out.read_text())
    same_fit(result, on_host)
    assert result["engine"] == "reference-device device" and "s elapsed; converged" in stdout
    configures = [r for r in dev.requests if type(r).__name__ == "Configure"]
    assert len(configures) == result["evaluations"] + 1  # the up-front check, then one per filter run


def test_a_devices_profile_interval_is_the_hosts(device, lg_csv, tmp_path, capsys):
    # The profile's runs go to the device as the fit's do: the same numbers, the same interval, bit for bit.
    out, host = tmp_path / "device.json", tmp_path / "host.json"
    assert main(["fit", str(lg_csv), *map(str, FIT), "--engine", "native", "--profile", "--json", str(host)]) == 0
    code, stdout, err = run_cli(capsys, "fit", lg_csv, *FIT, "--port", device().url, "--profile", "--json", out)
    assert code == 0, err
    got, oracle = json.loads(out.read_text()), json.loads(host.read_text())
    same_fit(got, oracle)
    assert (
        got["interval"] == oracle["interval"]
        and got["interval"]["r"][0] < got["estimate"]["r"] < got["interval"]["r"][1]
    )


@pytest.mark.qemu
@pytest.mark.parametrize("board", ["mps2-an500", "mps2-an386"])
def test_the_firmware_in_qemu_fits_as_the_host_does(board, lg_csv, on_host, tmp_path, capsys):
    if shutil.which(qemu.QEMU) is None or not qemu.image_path(board).is_file():
        pytest.skip(f"needs {qemu.QEMU} and build/{board}/firmware.elf (make deps firmware)")
    out = tmp_path / "fit.json"
    code, stdout, err = run_cli(capsys, "fit", lg_csv, *FIT, "--board", board, "--json", out)
    assert code == 0, err
    result = json.loads(out.read_text())
    assert result["engine"] == f"{board} device"
    if board == "mps2-an500":  # double precision: the native build's bits
        same_fit(result, on_host)
    else:  # single precision: its own log-likelihood, close to the host's
        assert abs(result["log_likelihood"] - on_host["log_likelihood"]) < 1e-3
        se = on_host["stderr"]["r"]  # measured: 0.003 se apart (the search stops at a relative 1e-4)
        assert abs(result["estimate"]["r"] - on_host["estimate"]["r"]) < 0.05 * se


def test_a_rough_fit_on_a_device_points_past_its_firmwares_largest_eta(device, tmp_path, capsys):
    # gss in refined mode at η = 4 (80 steps, seed 2: 1.3 nats rms off a quadratic) on a device built for
    # η ≤ 4: the η that would smooth it is one only the host's fit can run.
    trace = tmp_path / "gss.csv"
    assert main(["simulate", "--system", "gss", "--steps", "80", "--seed", "2", "-o", str(trace)]) == 0
    code, stdout, err = run_cli(
        capsys, "fit", trace, "--free", "sigma_v", "--eta", 4, "--mode", "refined", "--port", device(max_eta=4).url
    )
    assert code == 0, err
    assert (
        "they do not hold; a larger η smooths it (this firmware takes η ≤ 4: the host's fit, without "
        "--port/--board, takes --eta 8), as does --mode mixture"
    ) in stdout


def test_a_configuration_the_device_refuses_is_one_line(device, lg_csv, capsys):
    dev = device(refuse_configure=True)
    code, _, err = run_cli(capsys, "fit", lg_csv, *FIT, "--port", dev.url)
    assert code == 2 and err.strip() == "uxhost fit: error: device rejected CONFIGURE: ERR_CONFIG (detail 5)"
    assert not any(type(r).__name__ == "Step" for r in dev.requests)


def test_a_device_lost_mid_fit_is_one_line(device, lg_csv, capsys):
    dev = device(die_after=150)  # during the third filter run (60 steps each)
    code, _, err = run_cli(capsys, "fit", lg_csv, *FIT, "--port", dev.url, "--timeout", 0.5, "--retries", 1)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "at step k=30; the fit stopped at its filter run 3" in err


def test_a_device_of_another_board_is_refused_before_configure(device, lg_csv, capsys):
    dev = device()
    code, _, err = run_cli(capsys, "fit", lg_csv, *FIT, "--port", dev.url, "--expect-board", "mps2-an500")
    assert code == 2 and "is a reference-device (firmware ref-1), not the mps2-an500 asked for" in err
    assert not any(type(r).__name__ == "Configure" for r in dev.requests)


@pytest.mark.parametrize(
    "argv, complaint",
    [
        (("--engine", "native"), "--engine native: with --port/--board the device computes the log-likelihood"),
        (("--evidence", "density"), "--evidence density: with --port/--board the device computes the log-likelihood"),
        (("--params", "q=-1"), "--params: system 'lg': parameter q = -1.0 is not positive"),
        (("--system", "pendulum"), "a joint system is fitted on the host (its cell filter's log-likelihood)"),
    ],
)
def test_host_only_options_with_a_device_are_refused_before_it_is_opened(lg_csv, capsys, argv, complaint):
    # The port is closed: each complaint comes before anything tries to open it.
    code, _, err = run_cli(capsys, "fit", lg_csv, *FIT, "--port", "socket://127.0.0.1:1", *argv)
    assert code == 2 and complaint in err and len(err.strip().splitlines()) == 1, err


def test_a_model_of_your_own_is_not_fitted_on_a_device(lg_csv, tmp_path, capsys):
    model = tmp_path / "mine.py"
    model.write_text("import uxemu\n\ndef f(q=1.0):\n    return uxemu.systems.get('lg', q=q)\n")
    code, _, err = run_cli(
        capsys, "fit", lg_csv, "--free", "q", "--model", f"{model}:f", "--port", "socket://127.0.0.1:1"
    )
    assert code == 2 and "--model is Python, fitted on the host; a device fits the systems its firmware has" in err


def test_a_missing_port_is_one_line(lg_csv, capsys):
    code, _, err = run_cli(capsys, "fit", lg_csv, *FIT, "--port", "socket://127.0.0.1:1")
    assert code == 2 and "cannot open socket://127.0.0.1:1" in err and len(err.strip().splitlines()) == 1
