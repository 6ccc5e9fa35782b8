"""Mutated golden frames into the firmware in QEMU (fuzz/mutated_frames.py; `make fuzz` sends 10⁴ of
them): every answer is one valid frame of the protocol with the seq the request earned, the device
never stops answering, and a stream on the same device then validates. The oracle itself must be able
to fail, and the mutations must be what they claim: those are checked without a device."""

import random
import sys

import pytest
from fwutil import resync

from uxhost import protocol as p
from uxhost.qemu import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "fuzz"))

import mutated_frames as mf  # noqa: E402
import run as fuzz_run  # noqa: E402

FRAMES = 200  # per board


@pytest.mark.qemu
def test_mutated_frames_get_valid_answers_and_a_stream_still_validates(dev, tmp_path):
    tally = mf.run(dev, FRAMES, seed=7)
    assert tally.mutated_frames == FRAMES and set(tally.mutated.values()) == {FRAMES // len(mf.MUTATIONS)}
    assert tally.reached_decoder > 0  # valid-CRC frames got past the framing to the message decoder
    answered = set(tally.answers)
    assert {"ERR_CRC", "ERR_COBS", "ERR_LENGTH", "RESET_DONE", "CONFIGURED"} <= answered, tally.answers
    resync(dev)
    comparison = mf.stream_validates(dev, tmp_path / "stream.jsonl", steps=30)
    assert comparison.ok, comparison.first_bad


# --------------------------------------------------------------------------------------------------
# The oracle and the mutations, without a device

HELLO = p.encode(p.Hello(), 300)


def check(fragment_wire: bytes, answer_wire: bytes):
    return mf.Sender(device=None)._check(fragment_wire[:-1], answer_wire[:-1])


def test_the_oracle_takes_the_answers_the_protocol_allows():
    assert isinstance(check(HELLO, p.encode(p.Error(p.ErrorCode.TYPE, 1), 300)), p.Error)
    info = p.Info(
        protocol=p.PROTOCOL_VERSION,
        max_eta=8,
        real_bytes=8,
        cycle_source=0,
        reset_cause=1,
        board="b",
        fw_version="v",
        n_systems=4,
    )
    assert check(HELLO, p.encode(info, 300)) == info
    broken = HELLO[:3] + bytes([HELLO[3] ^ 0x40]) + HELLO[4:]
    assert check(broken, p.encode(p.Error(p.ErrorCode.CRC, 0), 0)).code == p.ErrorCode.CRC


@pytest.mark.parametrize(
    "request_wire, answer_wire, message",
    [
        (HELLO, p.encode(p.ResetDone(), 300)[:-3] + b"\x01\x01\x00", "not a valid frame"),  # CRC broken
        (HELLO, p.encode(p.ResetDone(), 301), "has seq 301, the request's is 300"),
        (HELLO, p.encode(p.ResetDone(), 300), "a ResetDone does not answer Hello"),
        (HELLO, p.encode(p.Hello(), 300), "is a Hello, not an answer"),
        (HELLO, p.encode(p.ResetDone(), 300, version=p.PROTOCOL_VERSION + 1), "has version"),
        (HELLO[:4] + b"\x00", p.encode(p.Error(p.ErrorCode.LENGTH, 3), 300), "must get a frame-level ERROR with seq 0"),
        (HELLO[:4] + b"\x00", p.encode(p.Error(p.ErrorCode.TYPE, 1), 0), "must get a frame-level ERROR"),
    ],
)
def test_the_oracle_rejects_what_the_protocol_does_not_allow(request_wire, answer_wire, message):
    with pytest.raises(mf.OracleFailure, match=message):
        check(request_wire, answer_wire)


def test_mutations_are_what_they_say():
    rng = random.Random(3)
    requests = [r for r in mf.golden_requests() if mf.expected_seq(r.wire[:-1]) is not None]
    assert len(requests) > 30
    for _ in range(2000):
        wire = rng.choice(requests).wire
        kind = rng.choice(mf.MUTATIONS)
        out = mf.mutate(wire, kind, rng)
        assert out.endswith(p.DELIMITER) and out != wire
        if kind == "truncate":
            assert len(out) < len(wire) and wire.startswith(out[:-1])
        elif kind == "insert":
            assert len(wire) < len(out) <= len(wire) + 8
        elif kind == "flip":
            assert len(out) == len(wire) and sum(a != b for a, b in zip(out, wire)) == 1
        else:  # a valid frame carrying changed content, unless it is longer than any frame may be
            body = out[:-1]
            assert p.DELIMITER not in body
            raw = p.cobs_decode(body)
            assert len(raw) > p.MAX_FRAME or mf.expected_seq(body) == mf.expected_seq(wire[:-1])


def test_a_stage_rewrites_its_own_part_of_the_results_file(tmp_path):
    out = tmp_path / "fuzz.md"
    fuzz_run.write_part(out, "# libFuzzer\n\nfirst\n", qemu_stage=False)
    fuzz_run.write_part(out, f"{fuzz_run.QEMU_SECTION}\n\n## QEMU\n\none\n", qemu_stage=True)
    fuzz_run.write_part(out, "# libFuzzer\n\nsecond\n", qemu_stage=False)
    assert out.read_text() == f"# libFuzzer\n\nsecond\n\n{fuzz_run.QEMU_SECTION}\n\n## QEMU\n\none\n"
    fuzz_run.write_part(out, f"{fuzz_run.QEMU_SECTION}\n\n## QEMU\n\ntwo\n", qemu_stage=True)
    assert out.read_text() == f"# libFuzzer\n\nsecond\n\n{fuzz_run.QEMU_SECTION}\n\n## QEMU\n\ntwo\n"
