"""Every way a request can be wrong gets the documented ERROR answer (docs/protocol.md), the device keeps
working, and the error changes nothing: a filter that saw bad requests between its steps produces the
same bytes as one that did not."""

import struct

import pytest
from fwutil import GSS, configure_args, exchange, expect_error, largest_eta, raw_frame, step_request

from uxhost import protocol as p

pytestmark = pytest.mark.qemu

E = p.ErrorCode
GSS_PARAMS = (3.0, 1.0)


def configure_payload(system=2, eta=8, mode=0, likelihood=0, params=GSS_PARAMS, kind=0, a=0.0, b=5.0, priors=None):
    priors = ((kind, a, b),) if priors is None else priors
    return p.Configure(system, eta, mode, likelihood, tuple(params), priors).pack()


def step_payload(k=1, flags=1, u=0.0, m=1, evidence=((1.0, 1.0),), n=None, dim_obs=1):
    """STEP field by field: `evidence` (z, ω) pairs, z a number or a row of dim_obs, sent as the ω then the z."""
    n = len(evidence) if n is None else n
    rows = [z if isinstance(z, tuple) else (z,) for z, _ in evidence]
    values = [w for _, w in evidence] + [v for row in rows for v in row]
    return struct.pack("<IBdHBB", k, flags, u, m, n, dim_obs) + struct.pack(f"<{len(values)}d", *values)


def still_works(dev):
    assert dev.hello().protocol == p.PROTOCOL_VERSION


# --------------------------------------------------------------------------------------------------
# Frame-level errors


def test_bad_crc(dev):
    wire = bytearray(p.cobs_decode(raw_frame(p.MsgType.HELLO, 5)[:-1]))
    wire[-1] ^= 0xFF
    expect_error(dev, p.cobs_encode(bytes(wire)) + b"\x00", E.CRC, detail=0, seq=0)
    still_works(dev)


def test_frame_shorter_than_header_and_crc(dev):
    for n in (1, 5, 9):
        expect_error(dev, p.cobs_encode(bytes(range(1, n + 1))) + b"\x00", E.LENGTH, detail=n, seq=0)
    still_works(dev)


def test_length_field_disagrees_with_the_frame(dev):
    body = p.HEADER.pack(p.PROTOCOL_VERSION, p.MsgType.HELLO, 6, 4) + b"\x01\x02"  # says 4 payload bytes, has 2
    raw = body + p.CRC.pack(p.crc32(body))
    expect_error(dev, p.cobs_encode(raw) + b"\x00", E.LENGTH, detail=len(raw), seq=6)
    still_works(dev)


def test_truncated_cobs_block(dev):
    wire = raw_frame(p.MsgType.HELLO, 3)
    # A code byte promising more bytes than arrive before the delimiter.
    expect_error(dev, wire[:-1] + b"\x09\x01\x02\x00", E.COBS, detail=0, seq=0)
    still_works(dev)


def test_oversized_frame(dev):
    # One byte over the largest frame, valid CRC: still discarded unread.
    too_long = raw_frame(p.MsgType.HELLO, 8, b"\x01" * (p.MAX_PAYLOAD + 1))
    expect_error(dev, too_long, E.TOO_LONG, detail=0, seq=0)
    # A long run of garbage without a delimiter is bounded the same way.
    expect_error(dev, bytes([0x55]) * 5000 + b"\x00", E.TOO_LONG, detail=0, seq=0)
    still_works(dev)


def test_largest_frame_is_read_and_judged_by_its_type(dev):
    # Exactly the largest frame: not too long; a HELLO with a payload is the wrong size for its type.
    wire = raw_frame(p.MsgType.HELLO, 9, b"\x01" * p.MAX_PAYLOAD)
    expect_error(dev, wire, E.LENGTH, detail=p.MAX_FRAME, seq=9)
    still_works(dev)


# Types no request has: unassigned ones, the answers' own types (a device takes no answer), and version
# 10's CONFIGURE_JOINT and STEP_JOINT (0x06, 0x07), whose systems CONFIGURE and STEP now carry.
@pytest.mark.parametrize("type_", [0x00, 0x08, 0xFF, p.MsgType.ERROR, p.MsgType.INFO, p.MsgType.SYSTEM, 0x06, 0x07])
def test_unknown_message_type(dev, type_):
    expect_error(dev, raw_frame(type_, 11), E.TYPE, detail=type_, seq=11)
    still_works(dev)


# 10: a host of the protocol before every system shared one message family.
@pytest.mark.parametrize("version", [0, 10, p.PROTOCOL_VERSION + 1, 255])
def test_wrong_version(dev, version):
    err = expect_error(dev, raw_frame(p.MsgType.HELLO, 12, version=version), E.VERSION, detail=version, seq=12)
    assert err.detail == version
    still_works(dev)


def test_garbage_between_frames(dev):
    garbage = bytes([0x41, 0x13, 0xFE, 0x07, 0x99, 0x02] * 7)
    try:
        decoded = p.cobs_decode(garbage)
        expected = E.LENGTH if len(decoded) < 10 else E.CRC
    except p.ProtocolError:
        expected = E.COBS
    hello1 = raw_frame(p.MsgType.HELLO, 21)
    hello2 = raw_frame(p.MsgType.HELLO, 22)
    answers = exchange(dev, hello1 + garbage + b"\x00" + hello2, answers=3)
    kinds = [(frame.seq, type(msg).__name__) for _, frame, msg in answers]
    assert kinds == [(21, "Info"), (0, "Error"), (22, "Info")]
    assert answers[1][2].code == expected
    # Empty frames (delimiters in a row) are ignored silently: only the HELLO is answered.
    answers = exchange(dev, b"\x00\x00\x00" + raw_frame(p.MsgType.HELLO, 23))
    assert answers[0][1].seq == 23
    still_works(dev)


def test_payload_size_wrong_for_its_type(dev):
    cfg = configure_payload()
    for payload, type_ in [
        (b"\x00", p.MsgType.HELLO),
        (b"\x00", p.MsgType.RESET),
        (cfg[:-1], p.MsgType.CONFIGURE),
        (cfg + b"\x00", p.MsgType.CONFIGURE),
        (b"\x02\x08", p.MsgType.CONFIGURE),
        (step_payload()[:-3], p.MsgType.STEP),
        (step_payload(n=2), p.MsgType.STEP),
    ]:
        wire = raw_frame(type_, 30, payload)
        expect_error(dev, wire, E.LENGTH, detail=10 + len(payload), seq=30)
    still_works(dev)


# --------------------------------------------------------------------------------------------------
# Message-level errors


def test_step_before_configure(dev):
    expect_error(dev, raw_frame(p.MsgType.STEP, 40, step_payload(k=0, flags=0)), E.NOT_CONFIGURED, detail=0, seq=40)
    still_works(dev)


@pytest.mark.parametrize(
    "fields, index",
    [
        (dict(system=0), 0),
        (dict(system=9), 0),
        (dict(eta=0), 1),
        (dict(eta=3), 1),
        (dict(eta=128), 1),
        (dict(mode=3), 2),
        (dict(likelihood=2), 3),
        (dict(params=(3.0,)), 4),
        (dict(params=(3.0, 1.0, 1.0)), 4),
        (dict(params=(float("nan"), 1.0)), 5),
        (dict(params=(3.0, -1.0)), 6),
        (dict(params=(3.0, float("inf"))), 6),
        (dict(priors=((0, 0.0, 5.0),) * 2), 7),  # GSS is dim 1
        (dict(priors=()), 7),
        (dict(kind=2), 8),
        (dict(a=float("nan")), 9),
        (dict(b=0.0), 10),
        (dict(b=-1.0), 10),
        (dict(system=1, params=(0.98, 0.0, 0.2, 0.0)), 8),  # SV: σ_ε must be > 0
        (dict(system=2, eta=3, mode=7), 1),  # the first bad field is reported
    ],
)
def test_bad_configuration(dev, fields, index):
    expect_error(dev, raw_frame(p.MsgType.CONFIGURE, 50, configure_payload(**fields)), E.CONFIG, detail=index, seq=50)
    still_works(dev)


@pytest.mark.parametrize(
    "fields, index",
    [
        (dict(flags=2), 1),
        (dict(flags=0x81), 1),
        (dict(u=float("inf")), 2),
        (dict(m=0), 3),  # evidence that stands for no observation
        (dict(evidence=()), 3),  # m = 1 observation, but no evidence (a missing one is m = 0)
        (dict(evidence=((1.0, 1.0),) * 65), 4),
        (dict(evidence=(((1.0, 2.0), 1.0),), dim_obs=2), 5),  # GSS observes one component
        (dict(evidence=((float("nan"), 1.0),)), 7),  # z[0], after the one ω
        (dict(evidence=((1.0, float("nan")),)), 6),
        (dict(evidence=((1.0, 0.5), (2.0, -0.5))), 7),
        (dict(evidence=((1.0, 0.5), (float("-inf"), 0.5))), 9),
    ],
)
def test_bad_evidence(dev, fields, index):
    dev.configure(**configure_args(GSS, 8))
    expect_error(dev, raw_frame(p.MsgType.STEP, 60, step_payload(**fields)), E.EVIDENCE, detail=index, seq=60)
    still_works(dev)


# --------------------------------------------------------------------------------------------------
# Errors change nothing


def run_steps(dev, zs, start=0):
    return [dev.step(k, k > 0, 0.0, z) for k, z in enumerate(zs, start)]


def test_errors_change_nothing(dev):
    zs = [1.5, 0.2, 4.0, 7.5]
    eta = largest_eta(dev, 16)
    dev.configure(**configure_args(GSS, eta))
    clean = run_steps(dev, zs)

    dev.reset()
    dev.configure(**configure_args(GSS, eta))
    disturbed = run_steps(dev, zs[:2])
    # Every kind of bad request, between two steps of a configured filter.
    bad = [
        raw_frame(p.MsgType.CONFIGURE, 70, configure_payload(eta=3)),
        raw_frame(p.MsgType.CONFIGURE, 71, configure_payload(system=1, params=(0.98, 0.0, 0.2, -1.0))),
        raw_frame(p.MsgType.STEP, 72, step_payload(k=2, evidence=((float("nan"), 1.0),))),
        raw_frame(p.MsgType.STEP, 73, step_payload(k=2, m=0)),
        raw_frame(p.MsgType.STEP, 74, step_payload(k=2, flags=3)),
        raw_frame(p.MsgType.STEP, 75, step_payload(k=2)[:-1]),
        raw_frame(p.MsgType.RESET, 76, b"\x00"),
        raw_frame(p.MsgType.RESET, 77, version=p.PROTOCOL_VERSION + 1),
        raw_frame(0x42, 78),
        bytes([0x21]) * 3000 + b"\x00",
        b"\x03\x01\x00",
    ]
    for wire in bad:
        [(_, _, msg)] = exchange(dev, wire)
        assert isinstance(msg, p.Error)
    disturbed += run_steps(dev, zs[2:], start=2)
    assert disturbed == clean


def test_error_answers_are_not_remembered(dev):
    # A rejected request's seq is not the device's "last executed" one: a valid request reusing it runs.
    dev.configure(**configure_args(GSS, 8))
    step0 = p.encode(step_request(0, False, 1.0), 90)
    [(_, _, first)] = exchange(dev, step0)
    expect_error(dev, raw_frame(p.MsgType.STEP, 91, step_payload(k=1, m=0)), E.EVIDENCE, detail=3, seq=91)
    [(_, frame, post)] = exchange(dev, p.encode(step_request(1, True, 2.0), 91))
    assert isinstance(post, p.Posterior) and post.k == 1 and frame.seq == 91
