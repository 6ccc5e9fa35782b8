"""The host side of the link protocol (docs/protocol.md), as a pure codec: no I/O here.

A wire frame is ``COBS(header ‖ payload ‖ crc32) ‖ 0x00`` with ``crc32 = zlib.crc32(header ‖ payload)``.
Every message is a frozen dataclass with ``pack()`` (payload bytes) and ``unpack(payload)``; :func:`encode`
and :func:`decode` add and remove the frame. The numbers and the payload layouts are not written here:
they come from protocol_spec, generated from docs/protocol.toml, and one layout-driven codec packs and
unpacks every message.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass, field, fields
from typing import ClassVar

from .protocol_spec import (  # noqa: F401 - re-exported: the protocol's numbers, generated from docs/protocol.toml
    CRC,
    HEADER,
    LAYOUTS,
    MAX_EVIDENCE,
    MAX_PAYLOAD,
    PROTOCOL_VERSION,
    SCALARS,
    STATUS_LEGEND,
    STATUS_SAYS,
    STATUS_WHY,
    CycleSource,
    ErrorCode,
    Likelihood,
    Mode,
    MsgType,
    ParamDomain,
    PriorKind,
    ResetCause,
    Status,
    StepFlags,
)

MAX_FRAME = HEADER.size + MAX_PAYLOAD + CRC.size
DELIMITER = b"\x00"


class ProtocolError(ValueError):
    """Bytes that are not a valid frame or message of this protocol."""


# --------------------------------------------------------------------------------------------------
# COBS and CRC


def cobs_encode(data: bytes) -> bytes:
    """COBS (Cheshire & Baker): the result has no 0x00; the delimiter is not included."""
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of :func:`cobs_encode` (input without the delimiter). Raises ProtocolError."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("COBS: 0x00 inside a frame")
        end = i + code
        if end > n:
            raise ProtocolError("COBS: frame ends inside a block")
        block = data[i + 1 : end]
        if 0 in block:
            raise ProtocolError("COBS: 0x00 inside a frame")
        out += block
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def crc32(data: bytes) -> int:
    """CRC-32/ISO-HDLC, as zlib computes it."""
    return zlib.crc32(data) & 0xFFFFFFFF


# --------------------------------------------------------------------------------------------------
# Frames


@dataclass(frozen=True)
class Frame:
    type: int
    seq: int
    payload: bytes = b""
    version: int = PROTOCOL_VERSION


def frame_bytes(frame: Frame) -> bytes:
    """The decoded frame: header ‖ payload ‖ crc32 (what COBS wraps)."""
    if len(frame.payload) > 0xFFFF:
        raise ValueError("payload longer than a u16 length can say")
    body = HEADER.pack(frame.version, frame.type, frame.seq, len(frame.payload)) + frame.payload
    return body + CRC.pack(crc32(body))


def encode_frame(frame: Frame) -> bytes:
    """The wire bytes of a frame, delimiter included."""
    return cobs_encode(frame_bytes(frame)) + DELIMITER


def parse_frame(raw: bytes) -> Frame:
    """A decoded frame (header ‖ payload ‖ crc32) back to a Frame. Raises ProtocolError."""
    if len(raw) < HEADER.size + CRC.size:
        raise ProtocolError(f"frame of {len(raw)} bytes is shorter than header + CRC")
    body, (crc,) = raw[: -CRC.size], CRC.unpack(raw[-CRC.size :])
    if crc32(body) != crc:
        raise ProtocolError("CRC mismatch")
    version, type_, seq, length = HEADER.unpack_from(body)
    if length != len(body) - HEADER.size:
        raise ProtocolError(f"header says {length} payload bytes, frame has {len(body) - HEADER.size}")
    return Frame(type=type_, seq=seq, payload=bytes(body[HEADER.size :]), version=version)


def decode_frame(wire: bytes) -> Frame:
    """Wire bytes of one frame (with or without its trailing delimiter) to a Frame."""
    if wire.endswith(DELIMITER):
        wire = wire[:-1]
    return parse_frame(cobs_decode(wire))


# --------------------------------------------------------------------------------------------------
# Messages


def _count_fields(count: str) -> list[str]:
    """The fields whose product is an array's count: "n" or "n*dim" (rows of dim components)."""
    return count.split("*")


def _pack_fields(layout: tuple, values: dict, what: str) -> bytes:
    """Payload bytes of `values` (a dict by field name) laid out as `layout` (protocol_spec.LAYOUTS). A
    field that alone counts an array is not in `values`: it is the array's length. A field that is only
    a factor of a product count (STEP.dim_obs) is in `values`, and every array's length must be
    its count."""
    counts = {rest[0]: len(values[name]) for name, element, *rest in layout if rest and "*" not in rest[0]}
    scalars: dict = {}
    out = bytearray()
    for name, kind, *count in layout:
        if count:
            expected = math.prod(scalars[c] for c in _count_fields(count[0]))
            if len(values[name]) != expected:
                raise ValueError(f"{what}.{name}: {len(values[name])} elements, {count[0]} = {expected}")
            for element in values[name]:
                out += (
                    _pack_fields(kind, element, what) if isinstance(kind, tuple) else _pack_scalar(kind, element, name)
                )
        elif kind == "str":
            data = values[name].encode("utf-8")
            if len(data) > 255:
                raise ValueError(f"{what}.{name}: string longer than 255 bytes")
            out += bytes([len(data)]) + data
        else:
            scalars[name] = counts[name] if name in counts else values[name]
            out += _pack_scalar(kind, scalars[name], name)
    return bytes(out)


def _pack_scalar(kind: str, value, name: str) -> bytes:
    try:
        return struct.pack("<" + SCALARS[kind], value)
    except struct.error as exc:
        raise ValueError(f"{name}: {exc}") from None


def _unpack_fields(layout: tuple, payload: bytes, at: int, what: str) -> tuple[dict, int]:
    """The fields of `layout` from `payload` at offset `at`, and the offset after them. Raises
    ProtocolError when the payload ends early."""
    values: dict = {}
    for name, kind, *count in layout:
        if count:
            items = []
            for _ in range(math.prod(values[c] for c in _count_fields(count[0]))):
                if isinstance(kind, tuple):
                    element, at = _unpack_fields(kind, payload, at, what)
                else:
                    element, at = _unpack_scalar(kind, payload, at, what)
                items.append(element)
            values[name] = items
        elif kind == "str":
            n, at = _unpack_scalar("u8", payload, at, what)
            if at + n > len(payload):
                raise ProtocolError(f"{what}: string {name} runs past the payload")
            values[name], at = payload[at : at + n].decode("utf-8", errors="replace"), at + n
        else:
            values[name], at = _unpack_scalar(kind, payload, at, what)
    return values, at


def _unpack_scalar(kind: str, payload: bytes, at: int, what: str):
    code = struct.Struct("<" + SCALARS[kind])
    if at + code.size > len(payload):
        raise ProtocolError(f"{what}: payload of {len(payload)} bytes ends inside a field")
    return code.unpack_from(payload, at)[0], at + code.size


def _names(message) -> list[str]:
    return [f.name for f in fields(message)]


class _Message:
    """A message is its fields in wire form (to_wire/from_wire: the dataclass's fields by default), laid
    out by the schema's layout for its TYPE."""

    TYPE: ClassVar[MsgType]

    def to_wire(self) -> dict:
        return {f: getattr(self, f) for f in _names(self)}

    @classmethod
    def from_wire(cls, values: dict):
        return cls(**{f: values[f] for f in _names(cls)})

    def pack(self) -> bytes:
        return _pack_fields(LAYOUTS[self.TYPE], self.to_wire(), self.TYPE.name)

    @classmethod
    def unpack(cls, payload: bytes):
        values, at = _unpack_fields(LAYOUTS[cls.TYPE], payload, 0, cls.TYPE.name)
        if at != len(payload):
            raise ProtocolError(f"{cls.TYPE.name}: payload of {len(payload)} bytes, expected {at}")
        return cls.from_wire(values)


@dataclass(frozen=True)
class Hello(_Message):
    TYPE: ClassVar[MsgType] = MsgType.HELLO


@dataclass(frozen=True)
class Info(_Message):
    TYPE: ClassVar[MsgType] = MsgType.INFO
    protocol: int
    max_eta: int
    real_bytes: int
    cycle_source: int
    reset_cause: int  # why the device last started (ResetCause)
    board: str
    fw_version: str
    n_systems: int  # systems built in: DESCRIBE 0 … n_systems − 1
    core_hz: int = 0  # the core clock the board's set-up reached, in Hz (version 10); 0: not reported

    def device(self) -> str:
        """ "board at N MHz, firmware V", as a banner names the device (no clock where INFO gives none)."""
        clock = f" at {self.core_hz / 1e6:g} MHz" if self.core_hz else ""
        return f"{self.board}{clock}, firmware {self.fw_version}"


@dataclass(frozen=True)
class Describe(_Message):
    TYPE: ClassVar[MsgType] = MsgType.DESCRIBE
    index: int


def _laws(priors) -> list[dict]:
    return [{"kind": int(kind), "a": float(a), "b": float(b)} for kind, a, b in priors]


def _check_weights(w: tuple[float, ...], n: int) -> None:
    if len(w) != n:
        raise ValueError(f"STEP: {n} evidence points, {len(w)} weights")
    for j, omega in enumerate(w):
        if not (math.isfinite(omega) and omega > 0):
            raise ValueError(f"STEP: evidence weight ω[{j}] = {omega!r}; every weight must be finite and > 0")


@dataclass(frozen=True)
class System(_Message):
    """One of the device's systems, as its system table describes it: a state of dim components, observed
    in dim_obs (a scalar system: 1 and 1)."""

    TYPE: ClassVar[MsgType] = MsgType.SYSTEM
    id: int
    name: str
    title: str
    dim: int
    dim_obs: int
    params: tuple[tuple[str, float, int], ...]  # (name, default, ParamDomain) in the system's order
    priors: tuple[tuple[int, float, float], ...]  # (PriorKind, a, b) per state component

    def to_wire(self) -> dict:
        params = [{"name": n, "default": float(d), "domain": int(dom)} for n, d, dom in self.params]
        return {**super().to_wire(), "params": params, "priors": _laws(self.priors)}

    @classmethod
    def from_wire(cls, values: dict) -> "System":
        params = tuple((q["name"], q["default"], q["domain"]) for q in values["params"])
        priors = tuple((q["kind"], q["a"], q["b"]) for q in values["priors"])
        return super().from_wire({**values, "params": params, "priors": priors})


@dataclass(frozen=True)
class Configure(_Message):
    """η, mode, likelihood, parameters and one prior law per state component (dim = len(priors))."""

    TYPE: ClassVar[MsgType] = MsgType.CONFIGURE
    system: int
    eta: int
    mode: int = Mode.REFINED
    likelihood: int = Likelihood.KERNEL
    params: tuple[float, ...] = ()
    priors: tuple[tuple[int, float, float], ...] = ((PriorKind.GAUSSIAN, 0.0, 1.0),)

    def to_wire(self) -> dict:
        return {**super().to_wire(), "params": [float(v) for v in self.params], "priors": _laws(self.priors)}

    @classmethod
    def from_wire(cls, values: dict) -> "Configure":
        priors = tuple((q["kind"], q["a"], q["b"]) for q in values["priors"])
        return super().from_wire({**values, "params": tuple(values["params"]), "priors": priors})


@dataclass(frozen=True)
class Configured(_Message):
    TYPE: ClassVar[MsgType] = MsgType.CONFIGURED
    count: int  # atoms in the quantized prior
    workspace_bytes: int


@dataclass(frozen=True)
class Step(_Message):
    """z holds the evidence points' rows of dim_obs components, packed (a scalar system: one value each)."""

    TYPE: ClassVar[MsgType] = MsgType.STEP
    k: int
    predict: bool
    u: float
    z: tuple[float, ...]  # n_evidence · dim_obs values; empty: a step without observation
    w: tuple[float, ...] = field(default=())  # empty: equal weights 1/n_evidence
    m: int = 1
    dim_obs: int = 1

    def to_wire(self) -> dict:
        z = tuple(float(v) for v in self.z)
        if self.dim_obs < 1 or len(z) % self.dim_obs:
            raise ValueError(f"STEP: {len(z)} observation values are not rows of dim_obs = {self.dim_obs}")
        n = len(z) // self.dim_obs
        w = tuple(float(v) for v in self.w) if self.w else tuple(1.0 / n for _ in range(n))
        _check_weights(w, n)
        flags = StepFlags.PREDICT if self.predict else 0
        return {"k": self.k, "flags": flags, "u": self.u, "m": self.m, "dim_obs": self.dim_obs, "omega": w, "z": z}

    @classmethod
    def from_wire(cls, values: dict) -> "Step":
        flags = values["flags"]
        if flags & ~StepFlags.PREDICT:
            raise ProtocolError(f"STEP: unknown flags 0x{flags:02x}")
        return cls(
            values["k"],
            bool(flags & StepFlags.PREDICT),
            values["u"],
            tuple(values["z"]),
            tuple(values["omega"]),
            values["m"],
            values["dim_obs"],
        )


@dataclass(frozen=True)
class Posterior(_Message):
    """A step's answer: mean (dim), row-major covariance (dim²; dim 1: the filter's variance), atoms as
    rows x (count·dim) and weights w."""

    TYPE: ClassVar[MsgType] = MsgType.POSTERIOR
    k: int
    status: int
    log_evidence: float  # log p(z_k | z_0..k−1): summed over a run, the marginal likelihood
    cycles_predict: int  # u64: a step of the largest configurations exceeds 2^32 virtual cycles
    cycles_update: int
    mean: tuple[float, ...]
    cov: tuple[float, ...]
    w: tuple[float, ...]
    x: tuple[float, ...]  # atom i's components at i·dim

    @property
    def dim(self) -> int:
        return len(self.mean)

    @property
    def count(self) -> int:
        return len(self.w)

    @property
    def fallback(self) -> bool:
        return self.status == Status.FALLBACK

    def to_wire(self) -> dict:
        return {**super().to_wire(), "dim": len(self.mean), "count": len(self.w)}

    @classmethod
    def from_wire(cls, values: dict) -> "Posterior":
        return super().from_wire({**values, **{f: tuple(values[f]) for f in ("mean", "cov", "w", "x")}})


@dataclass(frozen=True)
class Reset(_Message):
    TYPE: ClassVar[MsgType] = MsgType.RESET


@dataclass(frozen=True)
class ResetDone(_Message):
    TYPE: ClassVar[MsgType] = MsgType.RESET_DONE


@dataclass(frozen=True)
class Error(_Message):
    TYPE: ClassVar[MsgType] = MsgType.ERROR
    code: int
    detail: int = 0

    @property
    def name(self) -> str:
        try:
            return "ERR_" + ErrorCode(self.code).name
        except ValueError:
            return f"error {self.code}"


Message = Hello | Info | Describe | System | Configure | Configured | Step | Posterior | Reset | ResetDone | Error

MESSAGES: dict[int, type] = {
    cls.TYPE: cls
    for cls in (Hello, Info, Describe, System, Configure, Configured, Step, Posterior, Reset, ResetDone, Error)
}


def encode(message: Message, seq: int, version: int = PROTOCOL_VERSION) -> bytes:
    """Wire bytes of a message with sequence number `seq`, delimiter included."""
    payload = message.pack()
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"{type(message).__name__} payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    return encode_frame(Frame(type=message.TYPE, seq=seq, payload=payload, version=version))


def unpack_message(frame: Frame) -> Message:
    """The message a (valid) frame carries. Raises ProtocolError for an unknown type or a bad payload."""
    cls = MESSAGES.get(frame.type)
    if cls is None:
        raise ProtocolError(f"unknown message type 0x{frame.type:02x}")
    try:
        return cls.unpack(frame.payload)
    except struct.error as exc:  # pragma: no cover - _need checks sizes before every unpack
        raise ProtocolError(str(exc)) from exc


def decode(wire: bytes) -> tuple[Frame, Message]:
    """Wire bytes of one frame to its frame and message."""
    frame = decode_frame(wire)
    return frame, unpack_message(frame)
