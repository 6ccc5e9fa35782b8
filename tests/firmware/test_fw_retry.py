"""Retries: a request resent with the same sequence number is answered from memory, byte for byte, and
nothing runs twice; a host that times out and resends loses no step and applies none twice."""

import math
import time

import pytest
from fwutil import CUBIC, GSS, SV, configure_args, exchange, expect_error, largest_eta, step_request, trace

from uxhost import link
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


def test_host_resends_lose_no_step_and_apply_none_twice(dev):
    """Answers slower than the host's timeout make the host resend; the result must be the same."""
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
    before, retries = dev.resends, dev.retries
    # Timeouts a third of the typical predict-and-update step force a few resends of each (the device
    # answers every copy, so many more would flood the link); enough tries to wait out ten times the
    # slowest step, however loaded the machine is: only a lost or doubled step can fail the test.
    timeout = sorted(took[1:])[len(took[1:]) // 2] / 3
    dev.retries = int(10 * max(took) / timeout) + 10
    try:
        hasty = [dev.step(int(tr.k[i]), i > 0, float(tr.u[i]), float(tr.z[i]), timeout=timeout) for i in range(T)]
    finally:
        dev.retries = retries
    assert dev.resends > before
    assert hasty == patient


def test_silent_device_is_a_timeout(boot):
    dev = boot()
    dev.hello()
    dev.retries = 1
    dev.configure(**configure_args(CUBIC, largest_eta(dev, 16), likelihood=p.Likelihood.SAMPLER))
    dev.step(0, False, 0.0, 1.0, timeout=60)
    like = math.inf
    for k in (1, 2):
        started = time.monotonic()
        dev.step(k, True, 0.0, 1.0, timeout=60)
        like = min(like, time.monotonic() - started)
    # Every step after the first predicts η² atoms and updates them, so step 3 costs what steps 1 and 2 did
    # (the cubic sampler update at η = 16, or the micro:bit's η = 8). A quarter of the faster one's time is
    # a timeout step 3 cannot meet, however fast the machine, and the faster of two is not one that a
    # moment of load on the host stretched.
    with pytest.raises(link.DeviceTimeout, match="did not answer STEP"):
        dev.step(3, True, 0.0, 1.0, timeout=like / 4)
