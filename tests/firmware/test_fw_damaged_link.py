"""A stream to the firmware in QEMU through uxhost.damaging_proxy, which flips a byte of, drops or
duplicates 10 % of the frames in each direction: the dump is bit-identical to a clean run's, posterior
for posterior, and so are the virtual cycles of every step; the proxy did damage frames both ways and
the link did resend. (The soak, `python -m uxbench soak`, does the same for 10⁵ steps.)

One board, the reference mps2-an500: what is tested is the link's sequence numbers and retry memory,
which are the same code on every board."""

import numpy as np
import pytest
from fwutil import build_image

from uxemu import joint_systems, systems, traces
from uxhost import link, qemu
from uxhost.config import ModelConfig
from uxhost.damaging_proxy import DamagingProxy
from uxhost.dump import load_dump
from uxhost.streaming import stream_trace

pytestmark = pytest.mark.qemu

BOARD = "mps2-an500"
STEPS = 200


def stream(url: str, trace, config, out, timeout: float, retries: int) -> int:
    """Streams `trace` to the device at `url` into the dump `out`; the link's resends."""
    with link.Device.open(url, timeout=timeout, retries=retries) as device:
        stream_trace(device, trace, config, out, progress=False)
        return device.resends


def test_a_stream_through_a_damaging_link_is_bit_identical_to_a_clean_one(tmp_path):
    image = build_image(BOARD)
    model = systems.get("gss")
    trace = traces.simulate(model, STEPS, np.random.default_rng(11))
    config = ModelConfig(
        "gss", tuple(model.params), 8, "refined", "kernel", "gaussian", model.prior.mu, model.prior.sigma
    )
    with qemu.boot(BOARD, image) as instance:
        assert stream(instance.url, trace, config, tmp_path / "clean.jsonl", timeout=10, retries=3) == 0
    with qemu.boot(BOARD, image) as instance, DamagingProxy(instance.url, rate=0.1, seed=2) as proxy:
        # `uxhost stream`'s defaults: the link learns how long to wait before resending a lost frame, so the
        # 10 s timeout is only its ceiling, and the budget of (retries + 1) timeouts is one no load exhausts.
        resends = stream(proxy.url, trace, config, tmp_path / "damaged.jsonl", timeout=10, retries=3)
        counts = proxy.counts

    clean, damaged = load_dump(tmp_path / "clean.jsonl"), load_dump(tmp_path / "damaged.jsonl")
    assert len(damaged) == STEPS
    assert [s.posterior() for s in damaged.steps] == [s.posterior() for s in clean.steps]
    assert [(s.cycles_predict, s.cycles_update) for s in damaged.steps] == [
        (s.cycles_predict, s.cycles_update) for s in clean.steps
    ]
    for direction in ("to_device", "to_host"):
        c = counts[direction]
        assert c.flipped > 0 and c.dropped > 0 and c.duplicated > 0, (direction, c)
    assert resends > 0
    # Every frame the host sent is a request sent once (HELLO, a DESCRIBE per system, scalar and joint,
    # CONFIGURE, the STEPs) or a resend of one: the link counts exactly what went over the wire.
    assert counts["to_device"].frames == 2 + len(systems.SPECS) + len(joint_systems.SPECS) + STEPS + resends
