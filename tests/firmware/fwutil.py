"""Helpers shared by the firmware tests: raw frames, systems and their parameter vectors, traces."""

import numpy as np

from uxemu import systems, traces
from uxhost import protocol as p

# The paper's parameters and priors (docs/semantics.md), from the reference itself.
MODELS = {sid: systems.get(sid) for sid in (p.System.SV, p.System.GSS, p.System.CUBIC_BL)}


def configure_args(system: int, eta: int, mode: int = 0, likelihood: int = 0) -> dict:
    model = MODELS[system]
    return dict(system=system, eta=eta, mode=mode, likelihood=likelihood, params=model.params,
                prior_kind=p.PriorKind.GAUSSIAN, prior_a=model.prior.mu, prior_b=model.prior.sigma)


def trace(system: int, T: int, seed: int):
    return traces.simulate(MODELS[system], T, np.random.default_rng(seed))


def raw_frame(type_: int, seq: int, payload: bytes = b"", version: int = p.PROTOCOL_VERSION) -> bytes:
    """Wire bytes of an arbitrary frame (any type, any version), delimiter included."""
    return p.encode_frame(p.Frame(type=type_, seq=seq, payload=payload, version=version))


def exchange(dev, wire: bytes, answers: int = 1, timeout: float = 10.0) -> list[tuple[bytes, p.Frame, object]]:
    """Sends raw bytes and collects `answers` frames: (wire bytes, frame, message) each."""
    dev.send_raw(wire)
    out = []
    for _ in range(answers):
        raw = dev.read_wire(timeout=timeout)
        frame, message = p.decode(raw)
        out.append((raw, frame, message))
    return out


def expect_error(dev, wire: bytes, code: int, detail: int | None = None, seq: int | None = None) -> p.Error:
    """Sends `wire`, expects exactly one ERROR answer with this code (and detail and seq, if given)."""
    [(_, frame, message)] = exchange(dev, wire)
    assert isinstance(message, p.Error), f"expected ERROR {p.ErrorCode(code).name}, got {message}"
    assert message.code == code, f"expected {p.ErrorCode(code).name}, got {message.name} ({message.detail})"
    if detail is not None:
        assert message.detail == detail, f"{message.name}: detail {message.detail}, expected {detail}"
    if seq is not None:
        assert frame.seq == seq
    assert frame.version == p.PROTOCOL_VERSION
    return message


def step_request(k: int, predict: bool, z: float, u: float = 0.0) -> p.Step:
    return p.Step(k, predict, u, (z,), (1.0,), 1)
