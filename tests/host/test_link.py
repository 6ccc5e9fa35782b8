"""uxhost.link.Device against scripted peers on a local socket: retries, skipped late answers, and the
errors a user sees (missing port, silent device, version mismatch, ERROR answers). The real firmware is
exercised in tests/firmware."""

import re
import socket
import time

import numpy as np
import pytest
import serial

from uxhost import link
from uxhost import protocol as p

from peers import FramePeer


class ScriptedPeer(FramePeer):
    """A device stand-in: `answer(frame, message, n)` returns the bytes to send back for the n-th frame
    received (n from 0)."""

    def __init__(self, answer):
        self.answer = answer
        self.received: list[p.Frame] = []
        super().__init__()

    def on_frame(self, conn, frame, message):
        self.received.append(frame)
        reply = self.answer(frame, message, len(self.received) - 1)
        if reply:
            conn.sendall(reply)


@pytest.fixture
def peer():
    peers = []

    def make(answer):
        peers.append(ScriptedPeer(answer))
        return peers[-1]

    yield make
    for s in peers:
        s.close()


INFO = p.Info(p.PROTOCOL_VERSION, 64, 8, 0, p.ResetCause.POWER_ON, "fake", "0.0", 3)


def test_hello_returns_info(peer):
    dev_peer = peer(lambda f, m, n: p.encode(INFO, f.seq))
    with link.Device.open(dev_peer.url, timeout=2, first_seq=1234) as dev:
        assert dev.hello() == INFO
    assert dev_peer.received[0].type == p.MsgType.HELLO and dev_peer.received[0].seq == 1234


def test_each_request_starts_on_a_frame_boundary(peer):
    dev_peer = peer(lambda f, m, n: p.encode(INFO, f.seq))
    with link.Device.open(dev_peer.url, timeout=2) as dev:
        dev.hello()
    assert dev_peer.raw.startswith(b"\x00") and dev_peer.raw.endswith(b"\x00")


def test_sequence_numbers_advance_and_skip_zero():
    dev = link.Device(serial.serial_for_url("loop://"), "loop://", first_seq=0xFFFE)
    assert [dev.next_seq() for _ in range(4)] == [0xFFFE, 0xFFFF, 1, 2]
    dev.close()


def first_seq_of_a_new_session() -> int:
    with link.Device.open("loop://") as dev:
        return dev.next_seq()


def test_each_session_starts_at_a_random_nonzero_seq(monkeypatch):
    starts = {first_seq_of_a_new_session() for _ in range(20)}
    assert len(starts) > 1 and all(1 <= s <= 0xFFFF for s in starts)
    # The draw's extremes are the first and the last valid numbers, never 0.
    for drawn, first in ((0, 1), (0xFFFE, 0xFFFF)):
        monkeypatch.setattr(link.secrets, "randbelow", lambda n, drawn=drawn: drawn if n == 0xFFFF else None)
        assert first_seq_of_a_new_session() == first


def test_first_seq_outside_1_to_65535_is_refused():
    for bad in (0, 0x10000):
        with pytest.raises(ValueError, match="first_seq"):
            link.Device(serial.serial_for_url("loop://"), "loop://", first_seq=bad)


def test_silent_answer_is_resent_with_the_same_bytes(peer):
    # The first attempt gets no answer; the resent frame must be byte-identical (same seq).
    dev_peer = peer(lambda f, m, n: None if n == 0 else p.encode(p.ResetDone(), f.seq))
    with link.Device.open(dev_peer.url, timeout=0.3, retries=20, first_seq=77) as dev:
        dev.reset()
        assert dev.resends == len(dev_peer.received) - 1 >= 1
    assert all(frame == dev_peer.received[0] for frame in dev_peer.received) and dev_peer.received[0].seq == 77


def test_late_answers_to_other_requests_are_skipped(peer):
    def answer(f, m, n):
        stale = p.encode(p.Configured(3, 99), (f.seq - 1) or 0xFFFF)
        return stale + p.encode(p.ResetDone(), f.seq)

    with link.Device.open(peer(answer).url, timeout=2) as dev:
        dev.reset()
        assert dev.resends == dev.silences  # no resend for the stale answer (one only if the machine stalled)


def test_seq_zero_frame_error_triggers_a_resend(peer):
    # The device could not read our frame (line noise): it says ERR_CRC with seq 0; the host resends.
    def answer(f, m, n):
        return p.encode(p.Error(p.ErrorCode.CRC), 0) if n == 0 else p.encode(p.ResetDone(), f.seq)

    with link.Device.open(peer(answer).url, timeout=2) as dev:
        dev.reset()
        assert dev.unread == 1 and dev.resends == 1 + dev.silences


def test_damaged_answer_triggers_a_resend(peer):
    def answer(f, m, n):
        wire = bytearray(p.encode(p.ResetDone(), f.seq))
        if n == 0:
            wire[2] ^= 0x40  # corrupt one byte (never the delimiter)
        return bytes(wire)

    with link.Device.open(peer(answer).url, timeout=2) as dev:
        dev.reset()
        assert dev.damaged == 1 and dev.resends == 1 + dev.silences


def test_silent_device_raises_timeout(peer):
    dev_peer = peer(lambda f, m, n: None)
    with link.Device.open(dev_peer.url, timeout=0.2, retries=2, first_seq=1) as dev:
        with pytest.raises(link.DeviceTimeout, match=r"did not answer HELLO \(seq 1\) in 3 attempts"):
            dev.hello()
    assert len(dev_peer.received) == 3


def test_a_lost_hello_is_sent_again_after_its_own_timeout(peer):
    """A board whose UART was not listening yet drops the first HELLO; hello(timeout=…) asks again after
    that short wait, whatever long timeout the link keeps for slow steps."""
    dev_peer = peer(lambda f, m, n: None if n == 0 else p.encode(INFO, f.seq))
    with link.Device.open(dev_peer.url, timeout=600, retries=20) as dev:
        started = time.monotonic()
        assert dev.hello(timeout=0.2) == INFO
        assert time.monotonic() - started < 60  # not the link's 600 s, nor its first wait of 1 s forever
        assert dev.resends == len(dev_peer.received) - 1 >= 1


def test_missing_port_names_the_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound but not listening: nobody will accept
    url = f"socket://127.0.0.1:{port}"
    with pytest.raises(link.DeviceNotFound, match=url):
        link.Device.open(url)
    with pytest.raises(link.DeviceNotFound, match="/dev/ux-filter-no-such-port"):
        link.Device.open("/dev/ux-filter-no-such-port")


def test_protocol_version_mismatch_in_info(peer):
    other = p.Info(p.PROTOCOL_VERSION + 1, 64, 8, 0, p.ResetCause.POWER_ON, "fake", "9.9", 3)
    with link.Device.open(peer(lambda f, m, n: p.encode(other, f.seq)).url, timeout=2) as dev:
        with pytest.raises(link.VersionMismatch, match=f"protocol {p.PROTOCOL_VERSION + 1}"):
            dev.hello()


def test_version_error_answer_is_a_version_mismatch(peer):
    answer = lambda f, m, n: p.encode(p.Error(p.ErrorCode.VERSION, 1), f.seq)  # noqa: E731
    with link.Device.open(peer(answer).url, timeout=2) as dev:
        with pytest.raises(link.VersionMismatch):
            dev.hello()


# 10: a device of the protocol whose joint systems had messages of their own, answering in its version.
@pytest.mark.parametrize("other", [10, p.PROTOCOL_VERSION + 1])
def test_answer_frame_with_other_version_is_a_version_mismatch(peer, other):
    answer = lambda f, m, n: p.encode(INFO, f.seq, version=other)  # noqa: E731
    with link.Device.open(peer(answer).url, timeout=2) as dev:
        with pytest.raises(link.VersionMismatch, match=f"version {other}"):
            dev.hello()


def test_error_answer_raises_device_error_with_code_and_detail(peer):
    answer = lambda f, m, n: p.encode(p.Error(p.ErrorCode.CONFIG, 5), f.seq)  # noqa: E731
    with link.Device.open(peer(answer).url, timeout=2) as dev:
        with pytest.raises(link.DeviceError, match="ERR_CONFIG") as info:
            dev.configure(1, 8, params=(float("nan"), 0.0, 0.2, 1.0))
    assert (info.value.code, info.value.detail) == (p.ErrorCode.CONFIG, 5)


def test_step_sends_the_documented_payload(peer):
    def answer(f, m, n):
        return p.encode(p.Posterior(m.k, 0, -1.0, 3, 4, (1.0,), (2.0,), (1.0,), (1.0,)), f.seq)

    dev_peer = peer(answer)
    with link.Device.open(dev_peer.url, timeout=2) as dev:
        post = dev.step(7, True, 0.5, [1.0, 2.0], [0.25, 0.75], m=3)
    assert (post.k, post.mean, post.cov, post.cycles_update) == (7, (1.0,), (2.0,), 4)
    sent = p.Step.unpack(dev_peer.received[0].payload)
    assert sent == p.Step(7, True, 0.5, (1.0, 2.0), (0.25, 0.75), 3)


def test_unexpected_answer_type_is_a_protocol_error(peer):
    with link.Device.open(peer(lambda f, m, n: p.encode(p.ResetDone(), f.seq)).url, timeout=2) as dev:
        with pytest.raises(p.ProtocolError, match="expected Info"):
            dev.hello()


def test_loop_url_carries_frames():
    # loop:// echoes: what is sent is read back, which exercises the raw frame reader.
    with link.Device.open("loop://", timeout=1) as dev:
        dev.send_raw(b"\x00\x00" + p.encode(p.Hello(), 9))
        frame, message = dev.read_message()
    assert frame.seq == 9 and message == p.Hello()


def test_noise_longer_than_any_frame_is_survived(peer):
    # A run of non-zero bytes longer than any frame glued to the answer spoils that answer; the host
    # must neither choke on it nor keep it, and the resent request's answer must get through.
    noise = b"\x17" * 5000

    def answer(f, m, n):
        return (noise if n == 0 else b"") + p.encode(p.ResetDone(), f.seq)

    with link.Device.open(peer(answer).url, timeout=2) as dev:
        dev.reset()
        assert dev.damaged == 1 and dev.resends == 1 + dev.silences
        assert len(dev._rx) == 0


# ---------------------------------------------------------------------------------------------------------
# The adaptive wait: learnt from the answers (docs/protocol.md, "Sequence numbers and retries")


def test_the_wait_follows_the_smoothed_answer_time_between_floor_and_ceiling():
    timer = link.AnswerTimer()
    assert timer.wait(7.0) == link.RTO_INITIAL == 1.0 and timer.wait(0.3) == 0.3  # nothing measured
    timer.sample(0.4)
    assert (timer.srtt, timer.rttvar) == (0.4, 0.2)
    assert timer.wait(7.0) == pytest.approx(0.4 + 4 * 0.2)
    timer.sample(0.8)  # RFC 6298: RTTVAR ← ¾ RTTVAR + ¼ |SRTT − R|, then SRTT ← ⅞ SRTT + ⅛ R
    assert timer.rttvar == pytest.approx(0.75 * 0.2 + 0.25 * 0.4) and timer.srtt == pytest.approx(0.45)
    assert timer.wait(0.5) == 0.5  # never longer than the ceiling
    fast = link.AnswerTimer()
    for _ in range(50):
        fast.sample(0.001)
    assert fast.wait(10.0) == link.RTO_FLOOR  # never shorter than the floor
    steady = link.AnswerTimer()
    for _ in range(200):
        steady.sample(2.0)
    assert steady.wait(10.0) == pytest.approx(3.0)  # answers that never vary still get half again
    steady.silence()
    steady.silence()
    assert steady.wait(100.0) == pytest.approx(12.0) and steady.wait(10.0) == 10.0  # backoff, capped
    steady.sample(2.0)
    assert steady.backoff == 1


def test_a_dropped_answer_costs_the_learnt_wait_not_the_ceiling(peer):
    # Answers arrive at once, until one is lost. The link has learnt that RESET is answered in milliseconds,
    # so it resends after its floor, not after the 60 s ceiling (a bound 60 times the floor: no load makes
    # this fail but a link that waits the ceiling). Counts, not times, decide the rest: a loaded machine may
    # make an answer later than a wait, which costs a resend more, never a wrong count.
    lose = []

    def answer(f, m, n):
        if lose:
            lose.clear()
            return None
        return p.encode(p.ResetDone(), f.seq)

    dev_peer = peer(answer)
    with link.Device.open(dev_peer.url, timeout=60, retries=0, first_seq=1000) as dev:
        first = 1000
        timer = dev.timers.setdefault("RESET", link.AnswerTimer())
        for _ in range(50):
            dev.reset()
            if timer.samples >= 5:
                break
        assert timer.samples >= 5 and timer.wait(60) < 5
        samples, resends = timer.samples, dev.resends
        lose.append(True)
        started = time.monotonic()
        dev.reset()
        assert time.monotonic() - started < 30
        assert dev.resends > resends and dev.silences >= 1 and dev.damaged == 0
        assert timer.samples == samples  # Karn: a resent request's answer is not a measurement
        for _ in range(50):  # answered at once again: measured, and the wait is the smoothed one again
            dev.reset()
            if timer.samples > samples:
                break
        assert timer.samples > samples and timer.backoff == 1
        # Every attempt that did not bring the answer was followed by a resend.
        assert dev.resends == dev.silences + dev.damaged + dev.unread
    assert len(dev_peer.received) == dev._seq - first + 1 + dev.resends  # each request once, and the resends


def test_kinds_of_request_are_timed_apart(peer):
    answer = lambda f, m, n: p.encode(INFO if isinstance(m, p.Hello) else p.ResetDone(), f.seq)  # noqa: E731
    with link.Device.open(peer(answer).url, timeout=9) as dev:
        dev.hello()
        assert dev.timers["HELLO"].samples == 1 and "RESET" not in dev.timers
        assert dev.timers.setdefault("STEP", link.AnswerTimer()).wait(9) == link.RTO_INITIAL  # unmeasured


def damaged(wire: bytes) -> bytes:
    out = bytearray(wire)
    out[2] ^= 0x40  # one byte, never the delimiter
    return bytes(out)


def test_damaged_answers_do_not_burn_the_budget_and_are_named(peer):
    # Every answer damaged: the device is heard, so the message says the line damages frames, with the
    # count, instead of "did not answer"; and the attempts go on for the time a silent device is given
    # (retries + 1 ceilings), not the retries + 1 attempts that damage ends in milliseconds.
    dev_peer = peer(lambda f, m, n: damaged(p.encode(p.ResetDone(), f.seq)))
    with link.Device.open(dev_peer.url, timeout=0.2, retries=1, first_seq=5) as dev:
        with pytest.raises(link.LinkDamaged) as info:
            dev.reset()
    message = str(info.value)
    match = re.search(
        r"was heard but no answer to RESET \(seq 5\) arrived intact in (\d+) attempts .*: "
        r"(\d+) answer\(s\) arrived damaged, (\d+) attempt\(s\) met silence; the line damages frames",
        message,
    )
    assert match, message
    # (an attempt meets silence only if a stalled machine delays the peer's answer past the 0.2 s wait)
    attempts, damaged_answers, silences = int(match[1]), int(match[2]), int(match[3])
    assert attempts == damaged_answers + silences == len(dev_peer.received) and damaged_answers >= 1
    assert attempts > 2 or silences
    assert dev.damaged == damaged_answers and dev.silences == silences
    assert "did not answer" not in message


def test_requests_the_device_could_not_read_are_counted_apart(peer):
    dev_peer = peer(lambda f, m, n: p.encode(p.Error(p.ErrorCode.CRC), 0))
    with link.Device.open(dev_peer.url, timeout=0.2, retries=0) as dev:
        with pytest.raises(link.LinkDamaged, match=r"\d+ time\(s\) the device could not read the request") as info:
            dev.reset()
    assert "answer(s) arrived damaged" not in str(info.value) and dev.unread + dev.silences == len(dev_peer.received)


def test_half_the_answers_damaged_still_gets_through(peer):
    # Damage ends an attempt at once and costs no wait: a link that damages every other answer is slow,
    # not broken, with the default budget.
    dev_peer = peer(lambda f, m, n: (damaged if n % 2 == 0 else bytes)(p.encode(p.ResetDone(), f.seq)))
    with link.Device.open(dev_peer.url, timeout=10) as dev:
        for _ in range(20):
            dev.reset()
        assert dev.damaged >= 20 and dev.resends == dev.silences + dev.damaged + dev.unread
    assert len(dev_peer.received) == 20 + dev.resends


def test_a_device_silent_after_answering_is_given_the_time_a_silent_one_is(peer):
    # Learnt waits ramp up (doubling) to the ceiling; the request is given up once (retries + 1) ceilings
    # are used, and the message says so with the waits it tried.
    dev_peer = peer(lambda f, m, n: p.encode(p.ResetDone(), f.seq) if n < 5 else None)
    with link.Device.open(dev_peer.url, timeout=0.8, retries=1) as dev:
        for _ in range(5):
            dev.reset()
        with pytest.raises(
            link.DeviceTimeout,
            match=r"did not answer RESET \(seq \d+\) in \d+ attempts "
            r"\(.* s; waits of .* to 0\.8 s, at most 0\.8 s\)",
        ) as info:
            dev.reset()
    assert not isinstance(info.value, link.LinkDamaged)
    assert dev.silences == len(dev_peer.received) - 5 >= 2


def test_a_stream_summary_names_why_requests_were_resent():
    from uxhost.streaming import StreamSummary

    empty = np.array([], dtype=np.int64)
    clean = StreamSummary(5, empty, empty, "cycles", 0)
    assert not any(line.startswith("resent after") for line in clean.lines())
    noisy = StreamSummary(5, empty, empty, "cycles", 6, silences=3, damaged=2, unread=1)
    assert "resent after: 3 silence(s), 2 damaged answer(s), 1 request(s) the device could not read" in noisy.lines()
