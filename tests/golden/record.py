"""Records tests/golden/frames.toml: the golden frames, one named case per situation, each a sequence of
requests and the device's exact answers, byte for byte.

The requests and the expected ERROR/INFO answers are written below by hand; the device (the firmware's
protocol code built natively with the deterministic board of golden_test.c) supplies the bytes, and any
answer that differs from its expectation stops the recording. Only the answers whose content is the
filter's own (CONFIGURED, POSTERIOR) are taken as the device gives them. Run it only when the wire format
changes on purpose, and review the diff:

    .venv/bin/python tests/golden/record.py && make generate
"""

from __future__ import annotations

import dataclasses
import json
import math
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "firmware"))

from app_build import build_app, run_env  # noqa: E402

from uxemu import joint_systems, systems  # noqa: E402
from uxhost import protocol as p  # noqa: E402
from uxhost.link import system_message  # noqa: E402

FW_VERSION = "golden-1"
E = p.ErrorCode
SPECS = systems.SPECS  # the system table the device is built with
JOINT = joint_systems.SPECS  # its joint systems, which DESCRIBE lists after the scalar ones
N_SYSTEMS = len(SPECS) + len(JOINT)


def configure(name, eta, mode=0, likelihood=0, prior_kind=0):
    """CONFIGURE of a scalar system with its table prior (its law replaced by `prior_kind`)."""
    spec = SPECS[name]
    return p.Configure(spec.id, eta, mode, likelihood, spec.defaults, ((prior_kind, *spec.prior[1:]),))


def with_prior(cfg, **law):
    """`cfg` with its one prior law's kind, a or b replaced."""
    kind, a, b = cfg.priors[0]
    return dataclasses.replace(cfg, priors=((law.get("kind", kind), law.get("a", a), law.get("b", b)),))


def described(name):
    """The SYSTEM answer the table says the device must give for `name`."""
    return system_message(JOINT[name] if name in JOINT else SPECS[name])


def configure_joint(name, eta, mode=0):
    spec = JOINT[name]
    priors = tuple((p.PriorKind[kind.upper()], a, b) for kind, a, b in spec.prior)
    return p.Configure(spec.id, eta, mode, p.Likelihood.KERNEL, spec.defaults, priors)


GSS = configure("gss", 8)
GSS_MIXTURE = configure("gss", 8, mode=p.Mode.MIXTURE)
SV_PAPER_LAPLACE = configure("sv", 4, mode=1, prior_kind=1)
CUBIC_SAMPLER = configure("cubic", 4, likelihood=1)
# 1,000× the observation noise, mixture mode (refined takes the linear update: nothing to refocus)
LG_DIFFUSE = with_prior(configure("lg", 8, mode=p.Mode.MIXTURE), b=1000.0)
PENDULUM = configure_joint("pendulum", 8)
CVRANGE_PAPER = configure_joint("cvrange", 4, mode=1)
PENDULUM_CELLS = configure_joint("pendulum", 4, mode=p.Mode.CELLS)
INFO = p.Info(
    p.PROTOCOL_VERSION,
    64,
    8,
    p.CycleSource.HOST_NS,
    p.ResetCause.WATCHDOG,
    "golden",
    FW_VERSION,
    N_SYSTEMS,
    core_hz=216_000_000,
)


def message(m, seq, version=p.PROTOCOL_VERSION):
    """A request that is a message of the codec: the table records its fields too."""
    return ("message", m, seq, version)


def raw(wire: bytes, why: str):
    """A request that no message of the codec encodes (damaged, unknown, or refused by the host)."""
    return ("raw", wire, why)


def frame(type_, seq, payload=b"", version=p.PROTOCOL_VERSION):
    return p.encode_frame(p.Frame(type=type_, seq=seq, payload=payload, version=version))


def step_payload(k=1, flags=1, u=0.0, m=1, n=1, dim_obs=1, omega=(1.0,), z=(1.0,)):
    """A STEP payload field by field, as no valid message of the codec would write it."""
    return struct.pack("<IBdHBB", k, flags, u, m, n, dim_obs) + struct.pack(f"<{len(omega) + len(z)}d", *omega, *z)


def bad_crc_hello():
    data = bytearray(p.cobs_decode(p.encode(p.Hello(), 0x0101)[:-1]))
    data[-1] ^= 0xFF
    return p.cobs_encode(bytes(data)) + b"\x00"


def err(code, detail, seq):
    return (p.Error(code, detail), seq)


# (name, what it shows, [(request, expected answer or None: as the device gives it)])
CASES = [
    ("hello", "HELLO is answered with INFO", [(message(p.Hello(), 0x3A01), (INFO, 0x3A01))]),
    (
        "describe",
        "DESCRIBE of every system index: the device's system table, entry by entry",
        [(message(p.Describe(i), 0x50 + i), (described(name), 0x50 + i)) for i, name in enumerate([*SPECS, *JOINT])],
    ),
    (
        "err_describe",
        "DESCRIBE past the last system, and of the wrong size",
        [
            (message(p.Describe(N_SYSTEMS), 0x60), err(E.CONFIG, 0, 0x60)),
            (
                raw(frame(p.MsgType.DESCRIBE, 0x61, b"\x00\x00"), "DESCRIBE with two payload bytes"),
                err(E.LENGTH, 12, 0x61),
            ),
        ],
    ),
    (
        "session_gss",
        "a full session: HELLO, CONFIGURE, STEPs with and without predict, RESET",
        [
            (message(p.Hello(), 0xFFFE), (INFO, 0xFFFE)),
            (message(GSS, 0xFFFF), None),
            (message(p.Step(0, False, 0.0, (1.0,), (1.0,)), 1), None),
            (message(p.Step(1, True, 0.5, (2.0, 3.0), (0.25, 0.75), 2), 2), None),
            (message(p.Reset(), 3), (p.ResetDone(), 3)),
            (message(p.Step(2, True, 0.0, (1.0,), (1.0,)), 4), err(E.NOT_CONFIGURED, 0, 4)),
        ],
    ),
    (
        "session_sv_paper_laplace",
        "SV in paper mode with a Laplace prior",
        [
            (message(SV_PAPER_LAPLACE, 17), None),
            (message(p.Step(0, False, 0.0, (0.3,), (1.0,)), 18), None),
            (message(p.Step(1, True, 0.0, (-0.2,), (1.0,)), 19), None),
        ],
    ),
    (
        "session_gss_mixture",
        "GSS in mixture mode: the first update (prior form) and one after a predict",
        [
            (message(GSS_MIXTURE, 45), None),
            (message(p.Step(0, False, 0.0, (1.0,), (1.0,)), 46), None),
            (message(p.Step(1, True, 0.0, (12.0,), (1.0,)), 47), None),
        ],
    ),
    (
        "session_cubic_sampler",
        "the cubic system with the sampler likelihood",
        [
            (message(CUBIC_SAMPLER, 40), None),
            (message(p.Step(0, False, 0.0, (0.5,), (1.0,)), 41), None),
            (message(p.Step(1, True, 0.0, (0.55,), (1.0,)), 42), None),
        ],
    ),
    (
        "session_lg_refocused",
        "mixture mode, a prior 1,000× the observation noise: the first update answers REFOCUSED",
        [
            (message(LG_DIFFUSE, 55), None),
            (message(p.Step(0, False, 0.0, (3.7,), (1.0,)), 56), None),
            (message(p.Step(1, True, 0.0, (3.2,), (1.0,)), 57), None),
        ],
    ),
    (
        "session_lg_outlier",
        "a reading 10⁴ r off: the update answers OUTLIER (it failed the innovation gate)",
        [
            (message(configure("lg", 8), 60), None),
            (message(p.Step(0, False, 0.0, (0.5,), (1.0,)), 61), None),
            (message(p.Step(1, True, 0.0, (10000.0,), (1.0,)), 62), None),
        ],
    ),
    (
        "session_lg_inconsistent",
        "readings 3–5 predictive sd off by turns, each within the gate: the fourth update answers INCONSISTENT",
        [
            (message(configure("lg", 8), 63), None),
            (message(p.Step(0, False, 0.0, (0.5,), (1.0,)), 64), None),
            (message(p.Step(1, True, 0.0, (4.5,), (1.0,)), 65), None),
            (message(p.Step(2, True, 0.0, (-4.0,), (1.0,)), 66), None),
            (message(p.Step(3, True, 0.0, (4.5,), (1.0,)), 67), None),
        ],
    ),
    (
        "session_missing",
        "steps without observation (n_evidence 0, m 0): the first, and one after a predict",
        [
            (message(GSS, 50), None),
            (message(p.Step(0, False, 0.0, (), (), m=0), 51), None),
            (message(p.Step(1, True, 0.0, (), (), m=0), 52), None),
            (message(p.Step(2, True, 0.0, (1.0,), (1.0,)), 53), None),
        ],
    ),
    (
        "resend",
        "a resent frame (same seq, same CRC) is answered from memory, not run again",
        [
            (message(GSS, 7), None),
            (message(p.Step(0, False, 0.0, (1.0,), (1.0,)), 8), None),
            (message(p.Step(0, False, 0.0, (1.0,), (1.0,)), 8), "repeat"),
            (message(p.Step(1, True, 0.0, (2.0,), (1.0,)), 9), None),
        ],
    ),
    (
        "err_crc",
        "a damaged frame: ERR_CRC with seq 0",
        [(raw(bad_crc_hello(), "HELLO, last CRC byte flipped"), err(E.CRC, 0, 0))],
    ),
    (
        "err_length_short",
        "a frame shorter than header + CRC",
        [(raw(p.cobs_encode(b"\x01\x02\x03") + b"\x00", "3 bytes"), err(E.LENGTH, 3, 0))],
    ),
    (
        "err_length_field",
        "the header's length disagrees with the frame",
        [
            (
                raw(
                    p.cobs_encode(
                        p.HEADER.pack(p.PROTOCOL_VERSION, 1, 6, 4)
                        + b"\x01\x02"
                        + p.CRC.pack(p.crc32(p.HEADER.pack(p.PROTOCOL_VERSION, 1, 6, 4) + b"\x01\x02"))
                    )
                    + b"\x00",
                    "HELLO whose length says 4, with 2 payload bytes",
                ),
                err(E.LENGTH, 12, 6),
            )
        ],
    ),
    (
        "err_length_payload",
        "a payload of the wrong size for its type",
        [
            (raw(frame(p.MsgType.HELLO, 10, b"\x01"), "HELLO with one payload byte"), err(E.LENGTH, 11, 10)),
            (raw(frame(p.MsgType.CONFIGURE, 11, GSS.pack()[:-1]), "CONFIGURE one byte short"), err(E.LENGTH, 48, 11)),
            (
                raw(frame(p.MsgType.STEP, 12, step_payload(n=2)), "STEP says 2 evidence points, carries 1"),
                err(E.LENGTH, 43, 12),
            ),
        ],
    ),
    (
        "err_too_long",
        "a frame longer than the largest allowed is discarded unread",
        [
            (
                raw(frame(p.MsgType.HELLO, 13, b"\x01" * (p.MAX_PAYLOAD + 1)), "HELLO with MAX_PAYLOAD + 1 bytes"),
                err(E.TOO_LONG, 0, 0),
            )
        ],
    ),
    ("err_type", "an unknown message type", [(raw(frame(0x55, 14), "type 0x55"), err(E.TYPE, 0x55, 14))]),
    (
        "err_version",
        "another protocol version",
        [
            (message(p.Hello(), 15, version=p.PROTOCOL_VERSION + 1), err(E.VERSION, p.PROTOCOL_VERSION + 1, 15)),
            # version 10 had a second message family for joint systems: an old host is refused, not misread
            (message(p.Hello(), 18, version=10), err(E.VERSION, 10, 18)),
        ],
    ),
    (
        "err_not_configured",
        "STEP before CONFIGURE",
        [(message(p.Step(0, False, 0.0, (1.0,), (1.0,)), 16), err(E.NOT_CONFIGURED, 0, 16))],
    ),
    (
        "err_config",
        "each bad CONFIGURE field is named by its index",
        [
            (message(dataclasses.replace(GSS, system=9), 20), err(E.CONFIG, 0, 20)),
            (message(dataclasses.replace(GSS, eta=3), 21), err(E.CONFIG, 1, 21)),
            (message(dataclasses.replace(GSS, mode=3), 22), err(E.CONFIG, 2, 22)),
            (message(dataclasses.replace(GSS, likelihood=2), 23), err(E.CONFIG, 3, 23)),
            (message(dataclasses.replace(GSS, params=(3.0,)), 24), err(E.CONFIG, 4, 24)),
            (message(dataclasses.replace(GSS, params=(3.0, -1.0)), 25), err(E.CONFIG, 6, 25)),
            (message(dataclasses.replace(GSS, priors=GSS.priors * 2), 29), err(E.CONFIG, 7, 29)),
            (message(with_prior(GSS, kind=2), 26), err(E.CONFIG, 8, 26)),
            (message(with_prior(GSS, a=math.inf), 27), err(E.CONFIG, 9, 27)),
            (message(with_prior(GSS, b=0.0), 28), err(E.CONFIG, 10, 28)),
        ],
    ),
    (
        "err_evidence",
        "each bad STEP field is named by its index",
        [
            (message(GSS, 30), None),
            (raw(frame(p.MsgType.STEP, 31, step_payload(flags=3)), "flags 0x03"), err(E.EVIDENCE, 1, 31)),
            (message(p.Step(1, True, math.nan, (1.0,), (1.0,)), 32), err(E.EVIDENCE, 2, 32)),
            (message(p.Step(1, True, 0.0, (1.0,), (1.0,), m=0), 33), err(E.EVIDENCE, 3, 33)),
            (
                raw(frame(p.MsgType.STEP, 34, step_payload(n=0, omega=(), z=())), "n_evidence 0 with m = 1"),
                err(E.EVIDENCE, 3, 34),
            ),
            (message(p.Step(1, True, 0.0, (1.0, 2.0), (1.0,), dim_obs=2), 43), err(E.EVIDENCE, 5, 43)),
            (message(p.Step(1, True, 0.0, (1.0, math.inf), (0.5, 0.5)), 35), err(E.EVIDENCE, 9, 35)),
            (
                raw(frame(p.MsgType.STEP, 36, step_payload(n=2, omega=(1.0, 0.0), z=(1.0, 2.0))), "ω = (1, 0)"),
                err(E.EVIDENCE, 7, 36),
            ),
            (raw(frame(p.MsgType.STEP, 37, step_payload(omega=(-1.0,))), "ω = -1"), err(E.EVIDENCE, 6, 37)),
            (raw(frame(p.MsgType.STEP, 38, step_payload(omega=(math.nan,))), "ω = NaN"), err(E.EVIDENCE, 6, 38)),
            (message(p.Step(1, True, 0.0, (1.0,), (1.0,)), 39), None),
        ],
    ),
    (
        "session_pendulum",
        "a 2-D system through the same messages: STEPs with and without predict and observation",
        [
            (message(PENDULUM, 70), None),
            (message(p.Step(0, False, 0.0, (0.9,), (1.0,)), 71), None),
            (message(p.Step(1, True, 0.0, (0.95,), (1.0,)), 72), None),
            (message(p.Step(2, True, 0.0, (), (), m=0), 73), None),
            (message(p.Step(3, True, 0.5, (0.9, 1.0), (0.25, 0.75), 2), 74), None),
        ],
    ),
    (
        "session_cvrange_paper",
        "the range-only tracker in paper mode",
        [
            (message(CVRANGE_PAPER, 80), None),
            (message(p.Step(0, False, 0.0, (10.2,), (1.0,)), 81), None),
            (message(p.Step(1, True, 0.0, (10.0,), (1.0,)), 82), None),
        ],
    ),
    (
        "session_pendulum_cells",
        "the cell filter: its cells' means and weights as the atoms, a step without observation among them",
        [
            (message(PENDULUM_CELLS, 84), None),
            (message(p.Step(0, False, 0.0, (0.9,), (1.0,)), 85), None),
            (message(p.Step(1, True, 0.0, (0.95,), (1.0,)), 86), None),
            (message(p.Step(2, True, 0.0, (), (), m=0), 87), None),
            (message(p.Step(3, True, 0.0, (0.85,), (1.0,)), 88), None),
        ],
    ),
    (
        "err_joint",
        "bad CONFIGURE and STEP fields of a 2-D system, and a configuration of the other dim",
        [
            (message(dataclasses.replace(GSS, priors=PENDULUM.priors), 90), err(E.CONFIG, 7, 90)),
            (message(dataclasses.replace(PENDULUM, eta=64), 92), err(E.CONFIG, 1, 92)),
            (message(dataclasses.replace(PENDULUM, mode=p.Mode.MIXTURE), 105), err(E.CONFIG, 2, 105)),
            (message(dataclasses.replace(GSS, mode=p.Mode.CELLS), 107), err(E.CONFIG, 2, 107)),
            (message(dataclasses.replace(PENDULUM, likelihood=p.Likelihood.SAMPLER), 106), err(E.CONFIG, 3, 106)),
            (message(dataclasses.replace(PENDULUM, params=(0.05, 9.81, 0.5, -0.3)), 93), err(E.CONFIG, 8, 93)),
            (message(dataclasses.replace(PENDULUM, priors=PENDULUM.priors[:1]), 94), err(E.CONFIG, 9, 94)),
            (
                message(dataclasses.replace(PENDULUM, priors=(PENDULUM.priors[0], (0, 0.0, 0.0))), 95),
                err(E.CONFIG, 15, 95),
            ),
            (message(p.Step(0, False, 0.0, (0.9,), (1.0,)), 96), err(E.NOT_CONFIGURED, 0, 96)),
            (message(PENDULUM, 99), None),
            (message(p.Step(0, False, 0.0, (0.9, 0.1), (1.0,), dim_obs=2), 100), err(E.EVIDENCE, 5, 100)),
            (message(p.Step(0, False, 0.0, (math.nan,), (1.0,)), 101), err(E.EVIDENCE, 7, 101)),
            (raw(frame(p.MsgType.STEP, 102, step_payload(omega=(0.0,), z=(0.5,))), "ω = 0"), err(E.EVIDENCE, 6, 102)),
            (raw(frame(p.MsgType.STEP, 103, step_payload(z=())), "n_evidence 1, no z"), err(E.LENGTH, 35, 103)),
            (message(p.Step(0, False, 0.0, (0.9,), (1.0,)), 104), None),
        ],
    ),
    (
        "err_cobs",
        "a frame that ends inside a COBS block",
        [(raw(b"\x05\x01\x00", "code 5, one byte"), err(E.COBS, 0, 0))],
    ),
]


def record_case(exe: Path, exchanges) -> list[bytes]:
    wire = b"".join(req[1] if req[0] == "raw" else p.encode(req[1], req[2], req[3]) for req, _ in exchanges)
    proc = subprocess.run([str(exe)], input=wire, capture_output=True, timeout=120, env=run_env())
    if proc.returncode != 0:
        raise SystemExit(proc.stderr.decode(errors="replace"))
    answers = [chunk + b"\x00" for chunk in proc.stdout.split(b"\x00")[:-1]]
    if len(answers) != len(exchanges):
        raise SystemExit(f"{len(exchanges)} requests, {len(answers)} answers")
    return answers


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(v)


def fields_table(m, seq, version) -> str:
    items = {"message": type(m).__name__, "seq": seq}
    if version != p.PROTOCOL_VERSION:
        items["version"] = version
    items.update({f.name: getattr(m, f.name) for f in dataclasses.fields(m)})
    return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in items.items()) + " }"


def main() -> None:
    out = [
        "# The golden frames of the link protocol: named cases, each a sequence of requests sent to a freshly",
        "# started device and the device's exact answers (wire bytes in hex, COBS and delimiter included).",
        "# Python (tests/host/test_protocol.py) checks the codec against them, and the firmware's protocol code",
        "# (tests/golden/golden_test.c, through the frames.h codegen makes of this file) must give every answer",
        "# byte for byte. `sent` / `answered` are the messages' fields; a request without `sent` is raw bytes",
        "# that no message of the host codec encodes. Made by tests/golden/record.py (see there).",
        "",
        "# The firmware version the device is built with (APP_FW_VERSION), which its INFO answers carry.",
        f"fw_version = {toml_value(FW_VERSION)}",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_app(
            Path(tmp) / "golden_record", HERE / "golden_test.c", FW_VERSION, own_main=True, defines=("GOLDEN_RECORD",)
        )
        for name, doc, exchanges in CASES:
            answers = record_case(exe, exchanges)
            out += ["", "[[case]]", f"name = {toml_value(name)}", f"doc = {toml_value(doc)}"]
            previous = None
            for (req, expected), answer in zip(exchanges, answers):
                frame_, got = p.decode(answer)
                if expected == "repeat":
                    assert answer == previous, f"{name}: a resend must be answered with the same bytes"
                elif expected is not None:
                    assert (got, frame_.seq) == expected, f"{name}: got {got} seq {frame_.seq}, expected {expected}"
                else:  # the filter's own answer: never an error
                    assert not isinstance(got, p.Error), f"{name}: {req} was refused with {got}"
                previous = answer
                out += ["[[case.exchange]]"]
                if req[0] == "raw":
                    out += [f"request = {toml_value(req[1].hex())}", f"raw = {toml_value(req[2])}"]
                else:
                    out += [
                        f"request = {toml_value(p.encode(req[1], req[2], req[3]).hex())}",
                        f"sent = {fields_table(req[1], req[2], req[3])}",
                    ]
                out += [
                    f"answer = {toml_value(answer.hex())}",
                    f"answered = {fields_table(got, frame_.seq, frame_.version)}",
                ]
    (HERE / "frames.toml").write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"recorded {len(CASES)} cases in {HERE / 'frames.toml'}")


if __name__ == "__main__":
    main()
