"""The firmware's protocol code (firmware/app) built for the host with AddressSanitizer and UBSan and
fed random byte streams: whatever arrives, the code never touches memory it does not own, never stops
answering, and answers every non-empty frame exactly once with a valid frame. QEMU runs the same code
on the boards (tests/firmware/test_fw_*.py) but cannot see a buffer overrun; the sanitizers can."""

import subprocess
from pathlib import Path

import pytest
from app_build import build_app, run_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uxemu import joint_systems, systems
from uxhost import protocol as p


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    exe = tmp_path_factory.mktemp("app") / "app_native"
    try:
        return build_app(exe, Path(__file__).with_name("native_board.c"), "0.2.0+native-test")
    except RuntimeError as exc:
        pytest.fail(str(exc))


def run(app, data: bytes) -> list[bytes]:
    proc = subprocess.run([str(app)], input=data, capture_output=True, timeout=60, env=run_env())
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    assert proc.stdout == b"" or proc.stdout.endswith(b"\x00")
    return [chunk for chunk in proc.stdout.split(b"\x00") if chunk]


def requests_in(data: bytes) -> list[bytes]:
    """The non-empty frames the device must answer: everything up to the last delimiter."""
    return [chunk for chunk in data.split(b"\x00")[:-1] if chunk]


def hello(seq):
    return p.encode(p.Hello(), seq)


GSS = p.Configure(2, 8, 0, 0, (3.0, 1.0), ((0, 0.0, 5.0),))

valid = st.one_of(
    st.integers(1, 0xFFFF).map(hello),
    st.integers(1, 0xFFFF).map(lambda s: p.encode(GSS, s)),
    st.integers(1, 0xFFFF).map(lambda s: p.encode(p.Step(0, False, 0.0, (1.0,), (1.0,)), s)),
    st.integers(1, 0xFFFF).map(lambda s: p.encode(p.Step(1, True, 0.0, (2.0, 3.0), (0.5, 0.5), 2), s)),
    st.integers(1, 0xFFFF).map(lambda s: p.encode(p.Reset(), s)),
)


@st.composite
def damaged(draw):
    frame = bytearray(draw(valid))
    i = draw(st.integers(0, len(frame) - 2))
    frame[i] = draw(st.integers(1, 255))  # keep the delimiter where it is
    return bytes(frame)


chunks = st.one_of(
    valid,
    damaged(),
    st.binary(max_size=300),  # raw garbage, delimiters included
    st.binary(min_size=1200, max_size=3000).map(lambda b: b.replace(b"\x00", b"\x01") + b"\x00"),
    st.just(b"\x00"),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(chunks, max_size=12))
def test_random_streams_get_one_valid_answer_per_frame(app, parts):
    data = b"".join(parts)
    answers = run(app, data + b"\x00" + hello(0xBEEF))
    assert len(answers) == len(requests_in(data + b"\x00")) + 1
    for raw in answers:
        frame, message = p.decode(raw)  # every answer is a valid frame of a known type
        assert frame.version == p.PROTOCOL_VERSION
        assert isinstance(message, (p.Info, p.Configured, p.Posterior, p.ResetDone, p.Error))
    frame, message = p.decode(answers[-1])
    assert frame.seq == 0xBEEF and isinstance(message, p.Info)  # still working


def test_every_error_path_on_the_host(app):
    # One stream visiting each error code the frame layer and the messages can produce.
    bad_crc = bytearray(p.cobs_decode(hello(1)[:-1]))
    bad_crc[-1] ^= 1
    stream = [
        p.cobs_encode(bytes(bad_crc)) + b"\x00",  # ERR_CRC
        p.cobs_encode(b"\x01\x02\x03") + b"\x00",  # ERR_LENGTH
        b"\x07" * 2000 + b"\x00",  # ERR_TOO_LONG
        p.encode_frame(p.Frame(type=0x55, seq=2)),  # ERR_TYPE
        p.encode_frame(p.Frame(type=1, seq=3, version=p.PROTOCOL_VERSION + 1)),  # ERR_VERSION
        p.encode(p.Step(0, False, 0.0, (1.0,), (1.0,)), 4),  # ERR_NOT_CONFIGURED
        p.encode(p.Configure(9, 8, 0, 0, (3.0, 1.0), ((0, 0.0, 5.0),)), 5),  # ERR_CONFIG
        p.encode(GSS, 6),
        p.encode(p.Step(0, False, 0.0, (float("nan"),), (1.0,)), 7),  # ERR_EVIDENCE
        b"\x05\x01\x00",  # ERR_COBS
        p.encode(p.Step(0, False, 0.0, (1.0,), (1.0,)), 8),
    ]
    answers = [p.decode(raw)[1] for raw in run(app, b"".join(stream))]
    codes = [a.code if isinstance(a, p.Error) else type(a).__name__ for a in answers]
    E = p.ErrorCode
    assert codes == [
        E.CRC,
        E.LENGTH,
        E.TOO_LONG,
        E.TYPE,
        E.VERSION,
        E.NOT_CONFIGURED,
        E.CONFIG,
        "Configured",
        E.EVIDENCE,
        E.COBS,
        "Posterior",
    ]
    assert answers[-1].cycles_update > 0


def test_native_info_names_the_build(app):
    [raw] = run(app, hello(1))
    info = p.decode(raw)[1]
    assert info.board == "native-test" and info.cycle_source == p.CycleSource.HOST_NS
    assert (
        info.real_bytes == 8
        and info.max_eta == 64
        and info.n_systems == len(systems.names()) + len(joint_systems.names())
    )
