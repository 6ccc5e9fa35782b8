"""Retries: a request resent with the same sequence number is answered from memory, byte for byte, and
nothing runs twice; a host that times out and resends loses no step and applies none twice."""

import os
import signal
import time

import pytest
from fwutil import GSS, SV, configure_args, exchange, expect_error, largest_eta, step_request, trace

from uxhost import link, qemu
from uxhost import protocol as p

pytestmark = pytest.mark.qemu


def test_repeated_step_returns_identical_bytes_and_does_not_advance(dev):
    zs = [1.0, 3.0, 0.5]
    eta = largest_eta(dev, 16)
    dev.configure(**configure_args(GSS, eta))
    reference = [dev.step(k, k > 0, 0.0, z) for k, z in enumerate(zs)]

    dev.reset()
    dev.configure(**configure_args(GSS, eta))
    [(_, _, post0)] = exchange(dev, p.encode(step_request(0, False, zs[0]), 200))
    wire1 = p.encode(step_request(1, True, zs[1]), 201)
    answers = [exchange(dev, wire1)[0] for _ in range(3)]
    assert answers[0][0] == answers[1][0] == answers[2][0]  # the same bytes every time
    assert answers[0][2] == reference[1]
    [(_, _, post2)] = exchange(dev, p.encode(step_request(2, True, zs[2]), 202))
    assert [post0, answers[0][2], post2] == reference  # step 1 ran exactly once


def test_only_the_last_executed_request_is_remembered(dev):
    # A CONFIGURE resent after another request has run is new work: the filter starts again.
    wire = p.encode(p.Configure(**configure_args(SV, 8)), 300)
    first = exchange(dev, wire)[0]
    again = exchange(dev, wire)[0]  # still the last one: answered from memory
    assert first[0] == again[0]
    step0 = dev.step(0, False, 0.0, 0.4)
    dev.step(1, True, 0.0, -0.2)
    assert isinstance(exchange(dev, wire)[0][2], p.Configured)
    assert dev.step(0, False, 0.0, 0.4) == step0


def test_same_seq_different_request_is_executed(dev):
    # A new host session restarts at seq 1: a different request with the remembered seq is new work.
    dev.configure(**configure_args(GSS, 8))
    [(_, _, a)] = exchange(dev, p.encode(step_request(0, False, 2.0), 400))
    [(_, _, b)] = exchange(dev, p.encode(step_request(1, True, 2.5), 400))
    assert isinstance(b, p.Posterior) and b.k == 1 and a.k == 0


def test_retry_memory_survives_reset(dev):
    dev.configure(**configure_args(GSS, 8))
    wire = p.encode(p.Reset(), 500)
    first = exchange(dev, wire)[0][0]
    assert exchange(dev, wire)[0][0] == first


def test_retry_memory_survives_failed_requests(dev):
    # The next answer is built in the buffer that holds the remembered one (dispatch.c): a request that
    # fails, in messages.c or in the session, must not touch it.
    eta = largest_eta(dev, 32)
    dev.configure(**configure_args(GSS, eta))
    wire = p.encode(step_request(0, False, 1.5), 600)
    [(first, _, post0)] = exchange(dev, wire)
    expect_error(dev, p.encode(p.Describe(index=255), 601), p.ErrorCode.CONFIG)
    expect_error(dev, p.encode(p.Configure(**configure_args(GSS, 255)), 602), p.ErrorCode.CONFIG)
    expect_error(dev, p.encode(step_request(1, True, 2.0, u=float("inf")), 603), p.ErrorCode.EVIDENCE)
    assert exchange(dev, wire)[0][0] == first
    [(_, _, post1)] = exchange(dev, p.encode(step_request(1, True, 2.0), 604))
    dev.reset()
    dev.configure(**configure_args(GSS, eta))
    assert [post0, post1] == [dev.step(0, False, 0.0, 1.5), dev.step(1, True, 0.0, 2.0)]  # step 0 ran once


class LossyPort:
    """A device's port as a line that loses the first answer to each request whose seq is in `drop` and
    delivers each request whose seq is in `twice` two times over, back to back (a resend that reaches the
    device while it computes). It counts the answers it saw per seq, dropped ones included."""

    def __init__(self, port, drop=(), twice=()):
        self.port, self.drop, self.twice = port, set(drop), set(twice)
        self.held, self.ready = bytearray(), bytearray()
        self.seen: dict[int, int] = {}
        self.dropped: list[int] = []

    @property
    def timeout(self):
        return self.port.timeout

    @timeout.setter
    def timeout(self, value):
        self.port.timeout = value

    @property
    def in_waiting(self) -> int:
        return len(self.ready) or self.port.in_waiting

    def read(self, size: int = 1) -> bytes:
        if not self.ready:
            self.held += self.port.read(max(1, self.port.in_waiting))
            while (end := self.held.find(0)) >= 0:
                raw = bytes(self.held[:end])
                del self.held[: end + 1]
                if not raw:
                    continue
                seq = p.decode_frame(raw).seq
                self.seen[seq] = self.seen.get(seq, 0) + 1
                if seq in self.drop:
                    self.drop.discard(seq)
                    self.dropped.append(seq)
                    continue
                self.ready += raw + p.DELIMITER
        out = bytes(self.ready[:size])
        del self.ready[:size]
        return out

    def write(self, data: bytes) -> None:
        self.port.write(data)
        if p.decode_frame(bytes(data).strip(p.DELIMITER)).seq in self.twice:
            self.port.write(data)

    def flush(self) -> None:
        self.port.flush()

    def close(self) -> None:  # the shared device's port stays open
        pass


def test_host_resends_lose_no_step_and_apply_none_twice(dev):
    """A lost answer makes the host resend; a resend can also reach the device while it still computes the
    original. Either way the result must be the same: nothing lost, nothing applied twice.

    Which requests meet which is fixed by a lossy port between the host's link and the device, not by racing
    a short timeout against the device's steps (a loaded machine once stretched a step past such a test's
    whole budget): the answers to the even steps are lost, the odd steps are delivered twice. The link's
    ceiling is far above any step, so only a lost or doubled step can fail this test."""
    system, eta, T = SV, largest_eta(dev, 32), 6
    tr = trace(system, T, seed=7)
    dev.configure(**configure_args(system, eta, likelihood=p.Likelihood.SAMPLER))
    patient, took = [], []
    for i in range(T):
        started = time.monotonic()
        patient.append(dev.step(int(tr.k[i]), i > 0, float(tr.u[i]), float(tr.z[i])))
        took.append(time.monotonic() - started)

    dev.reset()
    dev.configure(**configure_args(system, eta, likelihood=p.Likelihood.SAMPLER))
    lossy = link.Device(LossyPort(dev.port), dev.url, timeout=60 + 20 * max(took), retries=3)
    lossy.timers = dev.timers  # the answer time the shared link has learnt, so a lost answer costs ~0.1 s
    seqs = [(lossy._seq + i) % 0xFFFF + 1 for i in range(T)]  # the numbers its next T requests take
    lossy.port.drop = {s for i, s in enumerate(seqs) if i % 2 == 0}
    lossy.port.twice = {s for i, s in enumerate(seqs) if i % 2 == 1}
    hasty = [lossy.step(int(tr.k[i]), i > 0, float(tr.u[i]), float(tr.z[i])) for i in range(T)]
    assert hasty == patient
    assert lossy.port.dropped == seqs[0::2] and lossy.resends >= T // 2
    # The device answered every copy: a lost answer's resend from memory, a copy that waited while the device
    # computed after the original (the last step's second answer may not have been read yet).
    assert all(lossy.port.seen[s] >= 2 for s in seqs[:-1]), lossy.port.seen


def test_silent_device_is_a_timeout(board, image):
    """A device that does not answer is a DeviceTimeout once the request's time is used, and a device that
    answers again later has executed the request once. Silence is made by stopping the emulator (SIGSTOP),
    not by a timeout shorter than a step, which a loaded machine could make the step meet."""
    with qemu.boot(board, image) as instance, link.Device.open(instance.url, timeout=10) as dev:
        dev.configure(**configure_args(GSS, largest_eta(dev, 8)))
        zs = [1.0, 2.5, 0.5]
        reference = [dev.step(k, k > 0, 0.0, z) for k, z in enumerate(zs)]
        dev.reset()
        dev.configure(**configure_args(GSS, largest_eta(dev, 8)))
        assert dev.step(0, False, 0.0, zs[0]) == reference[0]
        dev.retries = 1
        os.kill(instance.process.pid, signal.SIGSTOP)
        try:
            with pytest.raises(link.DeviceTimeout, match=r"did not answer STEP \(seq \d+\) in \d+ attempts"):
                dev.step(1, True, 0.0, zs[1], timeout=0.5)
        finally:
            os.kill(instance.process.pid, signal.SIGCONT)
        dev.retries = link.DEFAULT_RETRIES
        # Running again, the device reads the copies of step 1 it was sent, executes the first and answers
        # the others from memory; the host skips those late answers and step 2 follows step 1 once.
        assert dev.step(2, True, 0.0, zs[2]) == reference[2]
