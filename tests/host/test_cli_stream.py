"""`uxhost stream` over a real socket link against a device that runs the Python reference, and every
way a device can fail the user: missing port, silence, a version mismatch, garbage, a lost connection.

The peer speaks the real protocol (uxhost.protocol) and filters with the real reference, so a dump it
produces must validate exactly; the firmware itself is streamed in test_cli_qemu.py."""

import json
import re
import socket

import numpy as np
import pytest

import uxemu
from uxhost import protocol as p
from uxhost.cli import main
from uxhost.dump import load_dump

from cli_run import run_cli
from peers import ReferenceDevice


SPECS = uxemu.systems.SPECS


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "trace.csv"
    uxemu.simulate_many(uxemu.systems.get("gss"), 1, 12, 5)[0].to_csv(path)
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".npz"])
def test_stream_writes_a_dump_that_validates(suffix, device, trace, tmp_path, capsys):
    dev = device()
    out = tmp_path / f"dump{suffix}"
    code, stdout, err = run_cli(capsys, "stream", trace, "--port", dev.url, "--system", "gss", "--eta", 8, "-o", out)
    assert code == 0, err
    assert "12 steps, 0 fallback(s), 0 without observation, 0 resent request(s)" in stdout
    assert "predict  median" in stdout and "update   median" in stdout and " ns" in stdout

    # One HELLO, a DESCRIBE of each system the device has, one CONFIGURE with the system's default
    # parameters and prior (as the device describes them), one STEP per row.
    hello, *describes, configure = dev.requests[: 2 + len(SPECS)]
    steps = dev.requests[2 + len(SPECS) :]
    assert isinstance(hello, p.Hello)
    assert describes == [p.Describe(i) for i in range(len(SPECS))]
    assert configure == p.Configure(
        SPECS["gss"].id, 8, p.Mode.REFINED, p.Likelihood.KERNEL, (3.0, 1.0), ((p.PriorKind.GAUSSIAN, 0.0, 5.0),)
    )
    rows = uxemu.Trace.from_csv(trace)
    assert [s.k for s in steps] == list(rows.k)
    assert [s.predict for s in steps] == [False] + [True] * 11
    assert [s.z for s in steps] == [(z,) for z in rows.z]

    dump = load_dump(out)
    h = dump.header
    assert (h.config.system, h.config.eta, h.config.mode, h.config.likelihood) == ("gss", 8, "refined", "kernel")
    assert (h.board, h.firmware_version, h.real_bytes, h.cycle_source) == ("reference-device", "ref-1", 8, "host-ns")
    assert h.reset_cause == "power_on"
    assert h.trace == str(trace) and h.trace_steps == 12
    assert len(dump) == 12
    np.testing.assert_array_equal(dump.truth, rows.x)

    code, stdout, _ = run_cli(capsys, "validate", out)
    assert code == 0
    assert "within tolerance 1e-09 on every step: OK" in stdout


def test_stream_reports_why_the_device_last_started(device, trace, tmp_path, capsys):
    # A device whose watchdog reset it says so in INFO: the report shows it and the dump keeps it.
    dev = device(reset_cause=p.ResetCause.WATCHDOG)
    out = tmp_path / "d.jsonl"
    code, stdout, err = run_cli(capsys, "stream", trace, "--port", dev.url, "--system", "gss", "--eta", 4, "-o", out)
    assert code == 0, err
    assert "device   reference-device, firmware ref-1; last reset: watchdog" in stdout
    assert load_dump(out).header.reset_cause == "watchdog"
    assert json.loads(out.read_text().splitlines()[0])["reset_cause"] == "watchdog"


def test_stream_sends_the_chosen_configuration(device, trace, tmp_path, capsys):
    dev = device()
    code, _, err = run_cli(
        capsys,
        "stream",
        trace,
        "--port",
        dev.url,
        "--system",
        "sv",
        "--eta",
        4,
        "--mode",
        "paper",
        "--likelihood",
        "sampler",
        "--params",
        "0.9,0.1,0.3,1.5",
        "--prior",
        "laplace:0.5,2",
        "-o",
        tmp_path / "d.jsonl",
    )
    assert code == 0, err
    assert dev.requests[1 + len(SPECS)] == p.Configure(
        SPECS["sv"].id, 4, p.Mode.PAPER, p.Likelihood.SAMPLER, (0.9, 0.1, 0.3, 1.5), ((p.PriorKind.LAPLACE, 0.5, 2.0),)
    )
    code, stdout, _ = run_cli(capsys, "validate", tmp_path / "d.jsonl")
    assert code == 0, stdout


def test_missing_port_is_one_line(trace, tmp_path, capsys):
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    code, _, err = run_cli(capsys, "stream", trace, "--port", f"socket://127.0.0.1:{port}", "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert err.startswith(f"uxhost stream: error: cannot open socket://127.0.0.1:{port}")
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d.jsonl").exists()


def test_missing_serial_device_is_one_line(trace, tmp_path, capsys):
    code, _, err = run_cli(capsys, "stream", trace, "--port", "/dev/ttyUX-no-such-port", "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert err.startswith("uxhost stream: error: cannot open /dev/ttyUX-no-such-port")
    assert len(err.strip().splitlines()) == 1


def test_silent_device_is_one_line(device, trace, tmp_path, capsys):
    dev = device(silent=True)
    code, _, err = run_cli(capsys, "stream", trace, "--port", dev.url, "--timeout", "0.1", "-o", tmp_path / "d.jsonl")
    assert code == 2
    # A session's first seq is random (uxhost.link).
    assert re.fullmatch(
        rf"uxhost stream: error: device at {re.escape(dev.url)} did not answer HELLO "
        rf"\(seq \d+\) in 4 attempts of 0\.1 s",
        err.strip(),
    )
    assert len(dev.requests) == 4  # the same HELLO, resent


@pytest.mark.parametrize("retries", ["0", "6"])
def test_retries_sets_the_resends_of_an_unanswered_request(device, trace, tmp_path, capsys, retries):
    dev = device(silent=True)
    code, _, err = run_cli(
        capsys,
        "stream",
        trace,
        "--port",
        dev.url,
        "--timeout",
        "0.05",
        "--retries",
        retries,
        "-o",
        tmp_path / "d.jsonl",
    )
    assert code == 2 and f"in {int(retries) + 1} attempts of 0.05 s" in err
    assert len(dev.requests) == int(retries) + 1


def test_negative_retries_are_refused(trace, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(
            ["stream", str(trace), "--port", "socket://127.0.0.1:9", "--retries", "-1", "-o", str(tmp_path / "d.jsonl")]
        )
    assert exc.value.code == 2 and "--retries: must be at least 0, got -1" in capsys.readouterr().err


def test_version_mismatch_is_one_line(device, trace, tmp_path, capsys):
    dev = device(protocol=p.PROTOCOL_VERSION + 1)
    code, _, err = run_cli(capsys, "stream", trace, "--port", dev.url, "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert err.startswith("uxhost stream: error: ")
    assert f"speaks protocol {p.PROTOCOL_VERSION + 1}" in err and f"this host speaks {p.PROTOCOL_VERSION}" in err
    assert len(err.strip().splitlines()) == 1
    assert not any(isinstance(r, p.Configure) for r in dev.requests)


def test_a_peer_that_is_not_a_device_is_one_line(trace, tmp_path, capsys):
    # loop:// echoes every frame: a HELLO comes back instead of an INFO.
    code, _, err = run_cli(capsys, "stream", trace, "--port", "loop://", "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert err.strip() == (
        "uxhost stream: error: the device at loop:// does not speak the ux-filter link protocol "
        "(HELLO answered with Hello, expected Info)"
    )


def test_device_lost_mid_run_keeps_the_steps_received(device, trace, tmp_path, capsys):
    dev = device(die_after=5)
    out = tmp_path / "d.npz"
    code, _, err = run_cli(capsys, "stream", trace, "--port", dev.url, "--timeout", "0.5", "-o", out)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert f"at step k=5; the dump {out} keeps the 5 step(s) before it" in err
    dump = load_dump(out)
    assert [s.k for s in dump.steps] == [0, 1, 2, 3, 4]
    assert not dump.complete and dump.header.trace_steps == 12
    code, stdout, _ = run_cli(capsys, "validate", out)
    assert code == 0
    assert "cut short: 5 of 12" in stdout


def test_eta_above_the_firmware_maximum_is_one_line(device, trace, tmp_path, capsys):
    dev = device(max_eta=16)
    code, _, err = run_cli(capsys, "stream", trace, "--port", dev.url, "--eta", 32, "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert err.strip() == "uxhost stream: error: η=32 is larger than the 16 this firmware was built for"
    assert not any(isinstance(r, p.Configure) for r in dev.requests)


def test_configuration_refused_by_the_device_is_one_line(device, trace, tmp_path, capsys):
    dev = device(refuse_configure=True)
    code, _, err = run_cli(capsys, "stream", trace, "--port", dev.url, "-o", tmp_path / "d.jsonl")
    assert code == 2
    assert err.strip() == "uxhost stream: error: device rejected CONFIGURE: ERR_CONFIG (detail 5)"
    assert not any(isinstance(r, p.Step) for r in dev.requests)


def test_jsonl_dump_is_written_as_steps_arrive(device, trace, tmp_path, capsys):
    dev = device(die_after=3)
    out = tmp_path / "d.jsonl"
    run_cli(capsys, "stream", trace, "--port", dev.url, "--timeout", "0.5", "-o", out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["record"] for r in lines] == ["header", "step", "step", "step"]


def test_step_refused_by_the_device_is_one_line_and_keeps_the_dump(device, trace, tmp_path, capsys):
    dev = device(refuse_step=2)
    out = tmp_path / "d.jsonl"
    code, _, err = run_cli(capsys, "stream", trace, "--port", dev.url, "-o", out)
    assert code == 2
    assert err.strip() == (
        f"uxhost stream: error: device rejected STEP: ERR_INTERNAL (detail 3) at step k=2; "
        f"the dump {out} keeps the 2 step(s) before it"
    )
    assert len(load_dump(out)) == 2


# -- resuming a cut-short run (stream --resume) -------------------------------------------------------


def cut_short_run(device, trace, out, capsys, die_after=5):
    dev = device(die_after=die_after)
    code, _, _ = run_cli(
        capsys, "stream", trace, "--port", dev.url, "--timeout", "0.5", "--system", "gss", "--eta", 8, "-o", out
    )
    assert code == 2 and len(load_dump(out)) == die_after


def posteriors(dump):
    return [(s.k, s.u, s.z, s.x, s.posterior()) for s in dump.steps]


@pytest.mark.parametrize("suffix", [".jsonl", ".npz"])
def test_resume_replays_then_continues_into_the_same_dump(suffix, device, trace, tmp_path, capsys):
    whole = tmp_path / f"whole{suffix}"
    assert run_cli(capsys, "stream", trace, "--port", device().url, "--system", "gss", "--eta", 8, "-o", whole)[0] == 0
    out = tmp_path / f"cut{suffix}"
    cut_short_run(device, trace, out, capsys)
    fresh = device()
    code, stdout, err = run_cli(capsys, "stream", trace, "--port", fresh.url, "--resume", out)
    assert code == 0, err
    assert "resumed: 5 recorded step(s) replayed, every posterior bit-identical to the dump" in stdout
    assert "12 steps" in stdout
    # The fresh device ran every step once, from the start: the replay is what makes it exact.
    assert [s.k for s in fresh.requests if isinstance(s, p.Step)] == list(range(12))
    resumed = load_dump(out)
    assert posteriors(resumed) == posteriors(load_dump(whole))
    assert resumed.header.resumed_at == (5,) and resumed.complete
    assert run_cli(capsys, "validate", out)[0] == 0


class OffByOneUlp(ReferenceDevice):
    """A device whose filter differs from the recorded run in the last bit of one mean."""

    def _answer(self, message):
        answer = super()._answer(message)
        if isinstance(answer, p.Posterior) and answer.k == 3:
            answer = answer.__class__(**{**answer.__dict__, "mean": (np.nextafter(answer.mean[0], np.inf),)})
        return answer


def test_resume_refuses_a_device_that_answers_differently_and_keeps_the_dump(device, trace, tmp_path, capsys):
    out = tmp_path / "cut.jsonl"
    cut_short_run(device, trace, out, capsys)
    before = out.read_bytes()
    other = OffByOneUlp()
    try:
        code, _, err = run_cli(capsys, "stream", trace, "--port", other.url, "--resume", out)
    finally:
        other.close()
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "answers step k=3 of the replay differently from the dump" in err and f"{out} is unchanged" in err
    assert out.read_bytes() == before


def test_resume_errors_before_any_device_is_opened(device, trace, tmp_path, capsys):
    out = tmp_path / "cut.jsonl"
    cut_short_run(device, trace, out, capsys)
    nobody = "socket://127.0.0.1:9"  # never opened: every error below comes first
    cases = [
        (("--resume", out, "--eta", 16), "runs the configuration recorded in"),
        (("--resume", out, "--system", "gss"), "drop --system"),
        (("--resume", tmp_path / "none.jsonl"), "does not exist"),
    ]
    for argv, complaint in cases:
        code, _, err = run_cli(capsys, "stream", trace, "--port", nobody, *argv)
        assert code == 2 and complaint in err and len(err.strip().splitlines()) == 1, err
    other = tmp_path / "other.csv"
    rows = trace.read_text().splitlines()
    other.write_text("\n".join(rows[:3] + [rows[3].replace(rows[3].split(",")[2], "9.5")] + rows[4:]) + "\n")
    code, _, err = run_cli(capsys, "stream", other, "--port", nobody, "--resume", out)
    assert code == 2 and "not the trace this dump was made from" in err
    whole = tmp_path / "whole.jsonl"
    run_cli(capsys, "stream", trace, "--port", device().url, "--system", "gss", "--eta", 8, "-o", whole)
    code, _, err = run_cli(capsys, "stream", trace, "--port", nobody, "--resume", whole)
    assert code == 2 and "already holds all 12 steps" in err
