"""The `uxhost` command line: parsing, help, `simulate`, and the one-line errors of bad input."""

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import uxemu
from uxhost import __version__
from uxhost.cli import main
from uxhost.errors import InputError
from uxhost.commands import COMMANDS

from cli_run import run_cli


# -- parsing and help ------------------------------------------------------------------------------


REPO = Path(__file__).resolve().parents[2]


def test_python_dash_m_prints_the_three_versions():
    """The package's (pyproject.toml), the C core's (library.json) and the protocol's (docs/protocol.toml),
    each read here from its own source."""
    package = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    core = json.loads((REPO / "library.json").read_text())["version"]
    protocol = tomllib.loads((REPO / "docs" / "protocol.toml").read_text())["version"]
    res = subprocess.run([sys.executable, "-m", "uxhost", "--version"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0
    assert res.stdout.splitlines() == [f"uxhost {package}", f"C core {core}", f"protocol {protocol}"]
    assert __version__ == package


def test_help_says_what_version_prints(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--version print uxhost's version, the C core's and the link protocol's" in help_text


def test_the_firmware_is_built_on_the_core_version():
    """INFO's fw_version (firmware/arm.mk's FW_VERSION) starts with the version --version names for the core."""
    core = json.loads((REPO / "library.json").read_text())["version"]
    arm_mk = (REPO / "firmware" / "arm.mk").read_text()
    assert re.search(rf"^FW_VERSION\s*\?=\s*{re.escape(core)}\+", arm_mk, re.MULTILINE)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_subcommand_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: uxhost {command}")


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert command in out


def test_no_subcommand_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    assert "required" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, complaint",
    [
        (["stream", "t.csv", "-o", "d.jsonl"], "one of the arguments --port --board is required"),
        (["stream", "t.csv", "--port", "loop://", "--board", "mps2-an500", "-o", "d.jsonl"], "not allowed with"),
        (["stream", "t.csv", "--port", "loop://", "--eta", "12", "-o", "d.jsonl"], "invalid choice: 12"),
        (["simulate", "--system", "sv", "--steps", "0", "--seed", "1", "-o", "t.csv"], "must be at least 1"),
        (["simulate", "--system", "sv", "--steps", "5", "--seed", "-1", "-o", "t.csv"], "must be at least 0, got -1"),
        (["validate", "d.jsonl", "--rtol", "-1"], "must be a positive number"),
    ],
)
def test_bad_arguments_exit_2_with_argparse_message(argv, complaint, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert complaint in capsys.readouterr().err


# -- simulate --------------------------------------------------------------------------------------


@pytest.mark.parametrize("system", uxemu.systems.with_twin())
def test_simulate_writes_a_trace_the_reference_reads(system, tmp_path, capsys):
    out = tmp_path / "trace.csv"
    code, stdout, _ = run_cli(capsys, "simulate", "--system", system, "--steps", 30, "--seed", 7, "-o", out)
    assert code == 0
    assert str(out) in stdout
    header = [line for line in out.read_text().splitlines() if not line.startswith("#")][0]
    assert header == "k,u,z,x"
    trace = uxemu.Trace.from_csv(out)
    assert len(trace) == 30
    # The header names the model that made the trace, so `stream` can run it without being told.
    assert trace.meta["system"] == system
    assert tuple(map(float, trace.meta["params"].split(","))) == uxemu.systems.get(system).params
    assert list(trace.k) == list(range(30))
    assert np.isfinite(trace.z).all() and np.isfinite(trace.x).all()
    # The same seed gives the same trace; the trace is the reference's own simulation of the model.
    expected = uxemu.simulate_many(uxemu.systems.get(system), 1, 30, 7)[0]
    np.testing.assert_array_equal(trace.z, expected.z)
    np.testing.assert_array_equal(trace.x, expected.x)


def test_simulate_many_traces_are_numbered_and_independent_of_the_count(tmp_path, capsys):
    run_cli(capsys, "simulate", "--system", "gss", "--steps", 10, "--seed", 3, "-o", tmp_path / "one.csv")
    code, _, _ = run_cli(
        capsys, "simulate", "--system", "gss", "--steps", 10, "--seed", 3, "--traces", 3, "-o", tmp_path / "many.csv"
    )
    assert code == 0
    names = sorted(p.name for p in tmp_path.glob("many-*.csv"))
    assert names == ["many-000.csv", "many-001.csv", "many-002.csv"]
    first = uxemu.Trace.from_csv(tmp_path / "many-000.csv")
    np.testing.assert_array_equal(first.z, uxemu.Trace.from_csv(tmp_path / "one.csv").z)
    assert not np.array_equal(first.z, uxemu.Trace.from_csv(tmp_path / "many-001.csv").z)


def test_simulate_takes_parameter_overrides(tmp_path, capsys):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    run_cli(capsys, "simulate", "--system", "gss", "--steps", 20, "--seed", 1, "-o", a)
    code, _, _ = run_cli(
        capsys, "simulate", "--system", "gss", "--params", "sigma_v=0.5", "--steps", 20, "--seed", 1, "-o", b
    )
    assert code == 0
    quiet = uxemu.Trace.from_csv(b)
    expected = uxemu.simulate_many(uxemu.systems.get("gss", sigma_v=0.5), 1, 20, 1)[0]
    np.testing.assert_array_equal(quiet.x, expected.x)
    assert not np.array_equal(quiet.x, uxemu.Trace.from_csv(a).x)


def test_unknown_system_is_a_one_line_error_naming_the_known_ones(tmp_path, capsys):
    from uxemu import systems

    code, _, err = run_cli(
        capsys, "simulate", "--system", "lorenz", "--steps", 5, "--seed", 1, "-o", tmp_path / "t.csv"
    )
    assert code == 2
    assert err.startswith("uxhost simulate: error: no system 'lorenz' in the system table")
    assert all(name in err for name in systems.names())


def test_library_errors_are_value_and_os_errors():
    # A program using the library catches them as Python's own; the CLI needs no error type of its own.
    from uxhost.errors import ToolError
    from uxhost.qemu import QemuError

    assert issubclass(InputError, ValueError) and issubclass(ToolError, OSError) and issubclass(QemuError, OSError)


@pytest.mark.parametrize("error", ["InputError", "ToolError", "QemuError", "DumpError", "ProtocolError"])
def test_the_cli_maps_every_library_error_to_one_line_and_exit_2(error, monkeypatch, tmp_path, capsys):
    from uxhost import dump, errors, protocol, qemu
    from uxhost.commands import simulate

    cls = {
        "InputError": errors.InputError,
        "ToolError": errors.ToolError,
        "QemuError": qemu.QemuError,
        "DumpError": dump.DumpError,
        "ProtocolError": protocol.ProtocolError,
    }[error]

    def fail(args):
        raise cls("what went wrong,\n  and what to do")

    monkeypatch.setattr(simulate, "run", fail)
    code, out, err = run_cli(capsys, "simulate", "--system", "gss", "--steps", 5, "--seed", 1, "-o", tmp_path / "t.csv")
    assert (code, out, err) == (2, "", "uxhost simulate: error: what went wrong, and what to do\n")


def test_an_unexpected_error_is_not_mapped(monkeypatch, tmp_path, capsys):
    from uxhost.commands import simulate

    def fail(args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(simulate, "run", fail)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["simulate", "--system", "gss", "--steps", "5", "--seed", "1", "-o", str(tmp_path / "t.csv")])


@pytest.mark.parametrize(
    "params, complaint",
    [
        ("1,2,3", "takes 2 parameters"),
        ("sigma_v=abc", "--params"),
        ("sigma_q=1", "has no parameter ['sigma_q']"),
        ("sigma_v=1,2", "not a mix"),
        ("sigma_v=-1", "sigma_v = -1.0 is not positive"),
    ],
)
def test_bad_params_are_one_line_errors(params, complaint, tmp_path, capsys):
    code, _, err = run_cli(
        capsys, "simulate", "--system", "gss", "--params", params, "--steps", 5, "--seed", 1, "-o", tmp_path / "t.csv"
    )
    assert code == 2
    assert err.startswith("uxhost simulate: error: ") and complaint in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t.csv").exists()


# -- malformed traces (checked before any device is opened) -----------------------------------------

GOOD = "k,u,z,x\n0,0.0,1.5,0.1\n1,0.0,2.5,0.2\n2,0.0,0.5,0.3\n"


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("k,u,z,x\n0,0.0,1.5,0.1\n1,0.0,oops,0.2\n", ":3: column 'z' is not a number: 'oops'"),
        ("k,u,z,x\n0,0.0,1.5,0.1\n1,0.0,inf,0.2\n", ":3: column 'z' is not finite (inf)"),
        ("k,u,z,x\n0,0.0,1.5,0.1\n1,0.0,,nan\n", ":3: column 'x' is not finite"),
        ("k,u,z,x\n0,0.0,1.5,0.1\n\n1,inf,2.5,0.2\n", ":4: column 'u' is not finite"),
        ("k,u,z\n0,0.0,1.5\n1,0.0\n", ":3: expected 3 fields, got 2"),
        ("time,value\n0,1.5\n", "the header has no observation column 'z' (it has: time, value)"),
        ("k,u,z\n0,0.0,1.5\n1.5,0.0,2.5\n", ":3: step index k=1.5 is not an integer"),
        ("k,u,z,x\n", "the trace has no rows"),
        ("k,u,z\n-1,0.0,1.5\n", ":2: step index k=-1"),
        ("", "the header has no observation column 'z' (it has: nothing)"),
    ],
)
def test_malformed_trace_names_the_line(text, complaint, tmp_path, capsys):
    trace = tmp_path / "bad.csv"
    trace.write_text(text)
    code, _, err = run_cli(capsys, "stream", trace, "--port", "loop://", "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert err.startswith("uxhost stream: error: ")
    assert complaint in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d.jsonl").exists()


def test_observation_column_is_chosen_and_other_columns_are_ignored(tmp_path):
    """A logger's CSV: a timestamp, two sensors; --z-col picks the one the filter observes."""
    from uxhost.traces import load_trace

    path = tmp_path / "log.csv"
    path.write_text("timestamp,k,temp,humidity\n2026-11-23T08:00:00,0,21.5,40\n2026-11-23T08:00:01,1,21.7,41\n")
    trace = load_trace(path, z_col="temp")
    assert list(trace.z) == [21.5, 21.7] and list(trace.k) == [0, 1] and trace.x is None
    with pytest.raises(InputError, match="no observation column 'pressure' .it has: timestamp, k, temp, humidity"):
        load_trace(path, z_col="pressure")


def test_binary_trace_is_a_one_line_error(tmp_path, capsys):
    trace = tmp_path / "bad.csv"
    trace.write_bytes(b"\xff\xfe\x00\x81garbage")
    code, _, err = run_cli(capsys, "stream", trace, "--port", "loop://", "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "bad.csv" in err


def test_missing_trace_is_a_one_line_error(tmp_path, capsys):
    code, _, err = run_cli(capsys, "stream", tmp_path / "nope.csv", "--port", "loop://", "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert err.strip() == f"uxhost stream: error: trace file {tmp_path / 'nope.csv'} does not exist"


@pytest.mark.parametrize("prior", ["cauchy:0,1", "gaussian:0", "gaussian:0,-1", "laplace:a,b"])
def test_bad_prior_is_a_one_line_error(prior, tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text(GOOD)
    code, _, err = run_cli(
        capsys, "stream", trace, "--port", "loop://", "--system", "gss", "--prior", prior, "-o", tmp_path / "d.jsonl"
    )
    assert code == 2
    assert err.startswith("uxhost stream: error: --prior")


def test_stream_needs_a_system_from_the_user_or_the_trace(tmp_path, capsys):
    """No silent default: a trace without a '# system:' header and no --system is refused, by name."""
    trace = tmp_path / "t.csv"
    trace.write_text(GOOD)
    code, _, err = run_cli(capsys, "stream", trace, "--port", "loop://", "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert "has no '# system: NAME' header line: pass --system NAME" in err


def test_dump_needs_a_known_suffix(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text(GOOD)
    code, _, err = run_cli(capsys, "stream", trace, "--port", "loop://", "-o", tmp_path / "d.csv")
    assert code == 2
    assert "must end in .jsonl or .npz" in err


def test_qemu_not_installed_is_one_line(tmp_path):
    elf = tmp_path / "firmware.elf"
    elf.write_bytes(b"\x7fELF")
    env = dict(os.environ, PATH=str(tmp_path))  # no qemu-system-arm on this PATH
    res = subprocess.run(
        [sys.executable, "-m", "uxhost", "qemu", "--elf", str(elf)], capture_output=True, text=True, env=env, timeout=60
    )
    assert res.returncode == 2
    assert res.stderr.startswith("uxhost qemu: error: qemu-system-arm not found: run `make deps`")
    assert len(res.stderr.strip().splitlines()) == 1
