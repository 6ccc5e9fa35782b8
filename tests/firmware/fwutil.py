"""Helpers shared by the firmware tests: raw frames, systems and their parameter vectors, traces."""

import subprocess

import numpy as np
import pytest

from uxemu import systems, traces
from uxhost import link, qemu
from uxhost import protocol as p

# Every system with a reference twin, with its table defaults and prior, by id; and the ids of the
# systems some tests pick by name.
MODELS = {systems.spec(name).id: systems.get(name) for name in systems.with_twin()}
SV, GSS, CUBIC = (systems.spec(name).id for name in ("sv", "gss", "cubic"))


def configure_args(system: int, eta: int, mode: int = 0, likelihood: int = 0) -> dict:
    model = MODELS[system]
    return dict(
        system=system,
        eta=eta,
        mode=mode,
        likelihood=likelihood,
        params=model.params,
        priors=((p.PriorKind.GAUSSIAN, model.prior.mu, model.prior.sigma),),
    )


def board_setting(board: str, name: str) -> str:
    """A variable of boards/<board>/board.mk (BOARD_MAX_ETA, BOARD_DEFS, …), where each is defined once."""
    value = qemu._board_var(board, name)
    assert value is not None, f"boards/{board}/board.mk does not set {name}"
    return value


def real_bytes_of(board: str) -> int:
    """4 for the float build (-DUX_REAL_FLOAT in BOARD_DEFS), 8 for the double build."""
    return 4 if "-DUX_REAL_FLOAT" in (qemu._board_var(board, "BOARD_DEFS") or "") else 8


def prior_on(board: str, prior):
    """A table prior ((law, loc, scale), …) as a board describes it: its numbers rounded to the board's reals."""
    rnd = (lambda v: float(np.float32(v))) if real_bytes_of(board) == 4 else float
    return tuple((law, rnd(loc), rnd(scale)) for law, loc, scale in prior)


def serves_joint(board: str) -> bool:
    """False for a board built without joint systems (-DAPP_JOINT=0 added to BOARD_DEFS in its board.mk)."""
    return "-DAPP_JOINT=0" not in (qemu.BOARDS_DIR / board / "board.mk").read_text()


def need_eta(dev, eta: int) -> None:
    """Skips the test, saying why, on a board whose RAM holds no workspace for `eta` (INFO.max_eta)."""
    info = dev.hello()
    if eta > info.max_eta:
        pytest.skip(f"{info.board} holds η ≤ {info.max_eta} (BOARD_MAX_ETA): η = {eta} does not fit its RAM")


def largest_eta(dev, eta: int) -> int:
    """`eta`, or the board's largest η if that is smaller."""
    return min(eta, dev.hello().max_eta)


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


# Shared by conftest's fixtures and the test modules (which cannot import conftest by name: every test
# folder has one).
BOARDS = qemu.boards()

_built: dict[str, object] = {}


def build_image(board: str):
    """Builds (incrementally) build/<board>/firmware.elf, so the tests never run a stale image."""
    if board not in _built:
        out = qemu.image_path(board).parent
        proc = subprocess.run(
            ["make", "-s", "-C", str(qemu.REPO_ROOT / "firmware"), "arm", f"BOARD={board}", f"BUILD={out}"],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            pytest.fail(f"firmware build for {board} failed:\n{proc.stdout}\n{proc.stderr}", pytrace=False)
        _built[board] = qemu.image_path(board)
    return _built[board]


def resync(device: link.Device) -> None:
    """End any partial frame, drop unread answers, forget the configuration.

    The quiet period alone is no proof under load: the frame error for a partial frame may arrive after
    it, make reset() resend RESET, and leave the first attempt's answer unread. The closing HELLO's answer
    comes after every earlier one (the device answers in order) and request() skips those on the way."""
    device.send_raw(b"\x00")
    while True:
        try:
            device.read_wire(timeout=0.05)
        except link.DeviceTimeout:
            break
    device.reset()
    device.hello()
