"""The host codec of the link protocol (uxhost.protocol): COBS, CRC, frames and every message."""

import math
import struct
import tomllib
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uxhost import protocol as p

# --------------------------------------------------------------------------------------------------
# COBS


@pytest.mark.parametrize(
    "raw, encoded",
    [
        # The examples of Cheshire & Baker / the usual reference vectors.
        (b"", b"\x01"),
        (b"\x00", b"\x01\x01"),
        (b"\x00\x00", b"\x01\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
        (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x01"),
        (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255)) + b"\x01"),
        (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    ],
)
def test_cobs_known_vectors(raw, encoded):
    assert p.cobs_encode(raw) == encoded
    assert p.cobs_decode(encoded) == raw


@settings(deadline=None)
@given(st.binary(max_size=3000))
def test_cobs_round_trip_and_no_zero(data):
    enc = p.cobs_encode(data)
    assert 0 not in enc
    assert p.cobs_decode(enc) == data


@settings(deadline=None)
@given(st.binary(max_size=3000))
def test_cobs_overhead_is_bounded(data):
    # One code byte per started block of 254 bytes: the bound the firmware's buffers are sized with.
    assert len(p.cobs_encode(data)) <= len(data) + len(data) // 254 + 1


@settings(deadline=None)
@given(st.binary(min_size=1, max_size=600))
def test_cobs_decode_rejects_or_inverts(data):
    # Arbitrary bytes either fail cleanly or decode to something that encodes back to them.
    try:
        dec = p.cobs_decode(data)
    except p.ProtocolError:
        return
    assert p.cobs_encode(dec) == data


def test_cobs_decode_rejects_truncated_block():
    with pytest.raises(p.ProtocolError):
        p.cobs_decode(b"\x05\x11\x22")
    with pytest.raises(p.ProtocolError):
        p.cobs_decode(b"\x03\x00\x11")


# --------------------------------------------------------------------------------------------------
# CRC


@pytest.mark.parametrize(
    "data, crc",
    [(b"", 0x00000000), (b"123456789", 0xCBF43926), (b"a", 0xE8B7BE43), (b"\x00" * 4, 0x2144DF1C)],
)
def test_crc32_known_vectors(data, crc):
    assert p.crc32(data) == crc


# --------------------------------------------------------------------------------------------------
# Frames


def test_frame_layout_is_byte_exact():
    wire = p.encode_frame(p.Frame(type=0x01, seq=0x0203, payload=b"\xaa"))
    assert wire.endswith(b"\x00") and wire.count(0) == 1
    raw = p.cobs_decode(wire[:-1])
    body = bytes([p.PROTOCOL_VERSION, 0x01, 0x03, 0x02, 0x01, 0x00, 0xAA])
    assert raw == body + struct.pack("<I", zlib.crc32(body))


@settings(deadline=None)
@given(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=p.MAX_PAYLOAD))
def test_frame_round_trip(type_, seq, payload):
    frame = p.Frame(type=type_, seq=seq, payload=payload)
    assert p.decode_frame(p.encode_frame(frame)) == frame


def test_frame_with_bad_crc_is_rejected():
    raw = bytearray(p.frame_bytes(p.Frame(type=1, seq=7)))
    raw[-1] ^= 0x01
    with pytest.raises(p.ProtocolError, match="CRC"):
        p.parse_frame(bytes(raw))


def test_frame_with_wrong_length_field_is_rejected():
    body = p.HEADER.pack(1, 1, 7, 3) + b"\x01"
    with pytest.raises(p.ProtocolError, match="payload bytes"):
        p.parse_frame(body + struct.pack("<I", zlib.crc32(body)))


def test_short_frame_is_rejected():
    with pytest.raises(p.ProtocolError, match="shorter"):
        p.parse_frame(b"\x01\x01\x00")


# --------------------------------------------------------------------------------------------------
# Messages

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
weight = st.floats(min_value=0.0, exclude_min=True, allow_infinity=False, width=64)
u8 = st.integers(0, 255)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
u64 = st.integers(0, 2**64 - 1)
text = st.text(max_size=40).filter(lambda s: len(s.encode()) <= 255)

messages = st.one_of(
    st.just(p.Hello()),
    st.builds(p.Info, u16, u8, st.sampled_from([4, 8]), u8, u8, text, text, u8),
    st.builds(
        p.Configure,
        u8,
        u8,
        u8,
        u8,
        st.lists(finite, max_size=8).map(tuple),
        st.lists(st.tuples(u8, finite, finite), max_size=4).map(tuple),
    ),
    st.builds(p.Configured, u8, u32),
    st.tuples(st.integers(1, 24), st.integers(1, 4)).flatmap(  # ≤ MAX_PAYLOAD at every dim
        lambda nd: st.builds(
            p.Step,
            u32,
            st.booleans(),
            finite,
            st.lists(finite, min_size=nd[0] * nd[1], max_size=nd[0] * nd[1]).map(tuple),
            st.lists(weight, min_size=nd[0], max_size=nd[0]).map(tuple),
            u16,
            st.just(nd[1]),
        )
    ),
    st.tuples(st.integers(0, 24), st.integers(1, 4)).flatmap(
        lambda nd: st.builds(
            p.Posterior,
            u32,
            u8,
            st.floats(allow_nan=False, width=64),
            u64,
            u64,
            st.lists(finite, min_size=nd[1], max_size=nd[1]).map(tuple),
            st.lists(finite, min_size=nd[1] ** 2, max_size=nd[1] ** 2).map(tuple),
            st.lists(finite, min_size=nd[0], max_size=nd[0]).map(tuple),
            st.lists(finite, min_size=nd[0] * nd[1], max_size=nd[0] * nd[1]).map(tuple),
        )
    ),
    st.just(p.Reset()),
    st.just(p.ResetDone()),
    st.builds(p.Error, u8, u16),
)


@settings(max_examples=300, deadline=None)
@given(messages, st.integers(1, 0xFFFF))
def test_message_round_trip(message, seq):
    frame, back = p.decode(p.encode(message, seq))
    assert frame.seq == seq and frame.version == p.PROTOCOL_VERSION and frame.type == message.TYPE
    assert back == message


def test_payload_sizes_match_the_specification():
    assert len(p.Hello().pack()) == 0
    assert len(p.Configure(1, 8, params=(0.98, 0.0, 0.2, 1.0)).pack()) == 5 + 4 * 8 + 1 + 17
    assert len(p.Configure(5, 8, priors=((0, 0.0, 1.0),) * 2).pack()) == 5 + 1 + 2 * 17
    assert len(p.Configured(8, 1024).pack()) == 5
    assert len(p.Step(3, True, 0.0, (1.0, 2.0), (0.5, 0.5)).pack()) == 4 + 1 + 8 + 2 + 1 + 1 + 2 * 16
    assert len(p.Step(3, True, 0.0, (1.0, 2.0), (1.0,), dim_obs=2).pack()) == 17 + 8 + 2 * 8
    post = p.Posterior(1, 0, -2.5, 5, 6, (0.0,), (1.0,), (1 / 64,) * 64, (0.0,) * 64)
    assert len(post.pack()) == 4 + 1 + 8 + 8 + 8 + 1 + 8 + 8 + 1 + 64 * 16 <= p.MAX_PAYLOAD
    joint = p.Posterior(1, 0, -2.5, 5, 6, (0.0,) * 2, (1.0,) * 4, (1 / 32,) * 32, (0.0,) * 64)
    assert len(joint.pack()) == 4 + 1 + 8 + 8 + 8 + 1 + 2 * 8 + 4 * 8 + 1 + 32 * 8 * 3 <= p.MAX_PAYLOAD
    assert len(p.Error(1, 0).pack()) == 3


def test_step_fields_are_where_the_specification_puts_them():
    payload = p.Step(0x01020304, True, 2.5, (1.5,), (1.0,), m=7).pack()
    k, flags, u, m, n, dim_obs = struct.unpack_from("<IBdHBB", payload)
    assert (k, flags, u, m, n, dim_obs) == (0x01020304, 1, 2.5, 7, 1, 1)
    assert struct.unpack_from("<dd", payload, 17) == (1.0, 1.5)  # the weights, then the observations' rows
    payload = p.Step(1, True, 0.0, (1.5, 2.5, 3.5, 4.5), (0.25, 0.75), dim_obs=2).pack()
    assert payload[16] == 2 and struct.unpack_from("<6d", payload, 17) == (0.25, 0.75, 1.5, 2.5, 3.5, 4.5)
    assert p.Step(1, False, 0.0, (1.0,)).pack()[4] == 0


def test_step_default_weights_are_equal():
    step = p.Step.unpack(p.Step(1, True, 0.0, (1.0, 2.0, 3.0, 4.0)).pack())
    assert step.w == (0.25,) * 4
    assert p.Step.unpack(p.Step(1, True, 0.0, (9.0,)).pack()).w == (1.0,)


def test_posterior_cycles_are_u64_where_the_specification_puts_them():
    # A cubic η = 64 sampler step takes more than 2^32 virtual cycles: the counts must not wrap.
    predict, update = 2**32 + 5, 2**63 + 2**40 + 7
    payload = p.Posterior(9, 0, -math.inf, predict, update, (1.0,), (2.0,), (1.0,), (1.0,)).pack()
    assert struct.unpack_from("<dQQBdd", payload, 5) == (-math.inf, predict, update, 1, 1.0, 2.0)
    back = p.Posterior.unpack(payload)
    assert (back.cycles_predict, back.cycles_update) == (predict, update)


def test_info_strings_are_length_prefixed_and_systems_are_counted():
    payload = p.Info(4, 64, 8, 0, p.ResetCause.WATCHDOG, "ab", "xyz", 3, core_hz=168_000_000).pack()
    assert payload == b"\x04\x00\x40\x08\x00\x03\x00\x7a\x03\x0a\x02ab\x03xyz\x03"
    back = p.Info.unpack(payload)
    assert back.n_systems == 3 and back.reset_cause == p.ResetCause.WATCHDOG


def test_system_description_round_trips_with_strings_in_its_records():
    s = p.System(
        200,
        "thermo",
        "room thermometer",
        1,
        1,
        (("a", 0.9, p.ParamDomain.REAL), ("s", 0.5, p.ParamDomain.POSITIVE)),
        ((p.PriorKind.GAUSSIAN, 18.0, 3.0),),
    )
    payload = s.pack()
    assert payload[:8] == b"\xc8\x06thermo" and p.System.unpack(payload) == s
    with pytest.raises(p.ProtocolError, match="SYSTEM"):
        p.System.unpack(payload[:-1])


def test_unknown_type_and_bad_payload_are_rejected():
    with pytest.raises(p.ProtocolError, match="unknown message type"):
        p.unpack_message(p.Frame(type=0x55, seq=1))
    with pytest.raises(p.ProtocolError):
        p.unpack_message(p.Frame(type=p.MsgType.CONFIGURED, seq=1, payload=b"\x01"))
    with pytest.raises(p.ProtocolError):
        p.unpack_message(p.Frame(type=p.MsgType.STEP, seq=1, payload=b"\x00" * 16))  # ends inside dim_obs


def test_oversized_message_is_refused_by_the_encoder():
    huge = p.Posterior(1, 0, 0.0, 0, 0, (0.0,), (0.0,), (0.0,) * 80, (0.0,) * 80)
    with pytest.raises(ValueError, match="exceeds"):
        p.encode(huge, 1)


def test_error_names_follow_the_specification():
    assert p.Error(p.ErrorCode.CRC).name == "ERR_CRC"
    assert p.Error(p.ErrorCode.NOT_CONFIGURED).name == "ERR_NOT_CONFIGURED"
    assert p.Error(200).name == "error 200"
    assert [int(c) for c in p.ErrorCode] == list(range(1, 11))


def test_reals_travel_as_binary64_bit_exact():
    values = (math.pi, -0.0, 5e-324, 1.7976931348623157e308)
    post = p.Posterior.unpack(p.Posterior(1, 0, values[0], 0, 0, values[:2], values, values, values[:2] * 4).pack())
    assert [struct.pack("<d", v) for v in post.cov] == [struct.pack("<d", v) for v in values]
    assert (post.dim, post.count) == (2, 4)


@pytest.mark.parametrize("w", [(1.0, 0.0), (1.0, -0.5), (math.nan, 1.0), (1.0, math.inf)])
def test_step_refuses_weights_that_are_not_finite_and_positive(w):
    with pytest.raises(ValueError, match=r"weight ω\[\d\] = .*finite and > 0"):
        p.encode(p.Step(1, True, 0.0, (1.0, 2.0), w), 1)


# --------------------------------------------------------------------------------------------------
# Golden frames (tests/golden/frames.toml): the exact bytes the firmware exchanges, which the C side is
# checked against too (tests/firmware/test_golden_native.py).

GOLDEN = tomllib.loads((Path(__file__).resolve().parents[1] / "golden" / "frames.toml").read_text())["case"]
EXCHANGES = [pytest.param(x, id=f"{case['name']}-{i}") for case in GOLDEN for i, x in enumerate(case["exchange"])]
# Requests that are messages of the codec; the others are raw bytes no message encodes (damaged frames,
# unknown types, weights the host refuses to send).
SENT = [x for x in EXCHANGES if "sent" in x.values[0]]


def message_of(fields: dict):
    """A message and its frame header from a golden table's `sent` / `answered` entry."""
    fields = dict(fields)
    cls = getattr(p, fields.pop("message"))
    seq, version = fields.pop("seq"), fields.pop("version", p.PROTOCOL_VERSION)

    def frozen(v):  # the table's arrays (and arrays of records) as the messages' tuples
        return tuple(frozen(e) for e in v) if isinstance(v, list) else v

    return cls(**{k: frozen(v) for k, v in fields.items()}), seq, version


def test_golden_cases_cover_every_message_type_and_every_frame_error():
    answered = {x["answered"]["message"] for case in GOLDEN for x in case["exchange"]}
    sent = {x["sent"]["message"] for case in GOLDEN for x in case["exchange"] if "sent" in x}
    assert sent | answered == {cls.__name__ for cls in p.MESSAGES.values()}
    codes = {x["answered"]["code"] for case in GOLDEN for x in case["exchange"] if x["answered"]["message"] == "Error"}
    # ERR_INTERNAL is the core failing on a request the protocol accepted: no frame provokes it.
    assert codes == {int(c) for c in p.ErrorCode} - {p.ErrorCode.INTERNAL}


@pytest.mark.parametrize("exchange", SENT)
def test_golden_request_encodes_and_decodes(exchange):
    wire = bytes.fromhex(exchange["request"])
    message, seq, version = message_of(exchange["sent"])
    assert p.encode(message, seq, version) == wire
    frame, back = p.decode(wire)
    assert (frame.seq, frame.version) == (seq, version)
    assert repr(back) == repr(message)  # repr: NaN fields compare equal


@pytest.mark.parametrize("exchange", EXCHANGES)
def test_golden_answer_decodes_and_encodes(exchange):
    wire = bytes.fromhex(exchange["answer"])
    message, seq, version = message_of(exchange["answered"])
    frame, back = p.decode(wire)
    assert (frame.seq, frame.version) == (seq, version)
    assert repr(back) == repr(message)
    assert p.encode(message, seq, version) == wire


def test_golden_refocused_answer_is_the_kalman_posterior():
    # REFOCUSED on the wire: the Kalman posterior of a prior N(0, 1000²) and z = 3.7 (r = 1) to a tenth
    # of its sd, with Kalman's exact evidence.
    [case] = [c for c in GOLDEN if c["name"] == "session_lg_refocused"]
    first = case["exchange"][1]["answered"]
    s2 = 1000.0**2
    assert first["status"] == p.Status.REFOCUSED
    assert abs(first["mean"][0] - 3.7 * s2 / (s2 + 1.0)) < 0.1 and abs(first["cov"][0] - 1.0) < 0.2
    assert abs(first["log_evidence"] - (-0.5 * math.log(2 * math.pi * (s2 + 1.0)) - 0.5 * 3.7**2 / (s2 + 1.0))) < 1e-6


def test_golden_outlier_answer_carries_its_status():
    # OUTLIER on the wire: a reading 10⁴ r off after a predict; the first, ordinary reading is OK.
    [case] = [c for c in GOLDEN if c["name"] == "session_lg_outlier"]
    first, far = case["exchange"][1]["answered"], case["exchange"][2]["answered"]
    assert first["status"] == p.Status.OK and far["status"] == p.Status.OUTLIER


def test_golden_refused_weight_is_an_evidence_error_naming_the_field():
    [case] = [c for c in GOLDEN if c["name"] == "err_evidence"]
    [x] = [x for x in case["exchange"] if x.get("raw") == "ω = (1, 0)"]
    frame, message = p.decode(bytes.fromhex(x["request"]))
    assert (message.z, message.w) == ((1.0, 2.0), (1.0, 0.0))  # the host decodes it, but will not send it
    assert p.decode(bytes.fromhex(x["answer"]))[1] == p.Error(p.ErrorCode.EVIDENCE, 7)  # ω[1] = field 6+1
