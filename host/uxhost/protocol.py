"""The host side of the link protocol (docs/protocol.md), as a pure codec: no I/O here.

A wire frame is ``COBS(header ‖ payload ‖ crc32) ‖ 0x00`` with the 6-byte little-endian header
``version:u8 type:u8 seq:u16 length:u16`` and ``crc32 = zlib.crc32(header ‖ payload)``. Every message
is a frozen dataclass with ``pack()`` (payload bytes) and ``unpack(payload)``; :func:`encode` and
:func:`decode` add and remove the frame.
"""

from __future__ import annotations

import enum
import struct
import zlib
from dataclasses import dataclass, field
from typing import ClassVar

PROTOCOL_VERSION = 1
HEADER = struct.Struct("<BBHH")
CRC = struct.Struct("<I")
MAX_PAYLOAD = 1200
MAX_FRAME = HEADER.size + MAX_PAYLOAD + CRC.size
MAX_EVIDENCE = 64
DELIMITER = b"\x00"


class MsgType(enum.IntEnum):
    HELLO = 0x01
    CONFIGURE = 0x02
    STEP = 0x03
    RESET = 0x04
    INFO = 0x81
    CONFIGURED = 0x82
    POSTERIOR = 0x83
    RESET_DONE = 0x84
    ERROR = 0x7F


class ErrorCode(enum.IntEnum):
    CRC = 1
    LENGTH = 2
    TOO_LONG = 3
    TYPE = 4
    VERSION = 5
    NOT_CONFIGURED = 6
    CONFIG = 7
    EVIDENCE = 8
    COBS = 9
    INTERNAL = 10


class CycleSource(enum.IntEnum):
    SYSTICK_ICOUNT = 0  # virtual cycles: SysTick under QEMU -icount
    DWT = 1  # real cycles from DWT CYCCNT
    HOST_NS = 2  # nanoseconds of the host clock (native build)


class System(enum.IntEnum):
    """Ids of docs/semantics.md."""

    SV = 1
    GSS = 2
    CUBIC_BL = 3


SYSTEM_N_PARAMS = {System.SV: 4, System.GSS: 2, System.CUBIC_BL: 6}


class Mode(enum.IntEnum):
    REFINED = 0
    PAPER = 1


class Likelihood(enum.IntEnum):
    KERNEL = 0
    SAMPLER = 1


class PriorKind(enum.IntEnum):
    GAUSSIAN = 0
    LAPLACE = 1


class Status(enum.IntEnum):
    OK = 0
    FALLBACK = 1  # every likelihood was zero: the posterior is the prior


STEP_FLAG_PREDICT = 0x01


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


def _need(payload: bytes, size: int, what: str) -> None:
    if len(payload) != size:
        raise ProtocolError(f"{what}: payload of {len(payload)} bytes, expected {size}")


def _string(payload: bytes, at: int, what: str) -> tuple[str, int]:
    if at >= len(payload):
        raise ProtocolError(f"{what}: payload ends before a string length")
    n = payload[at]
    if at + 1 + n > len(payload):
        raise ProtocolError(f"{what}: string runs past the payload")
    return payload[at + 1 : at + 1 + n].decode("utf-8", errors="replace"), at + 1 + n


def _pack_string(text: str) -> bytes:
    data = text.encode("utf-8")
    if len(data) > 255:
        raise ValueError("string longer than 255 bytes")
    return bytes([len(data)]) + data


class _Empty:
    """A message with no payload (HELLO, RESET, RESET_DONE)."""

    def pack(self) -> bytes:
        return b""

    @classmethod
    def unpack(cls, payload: bytes):
        _need(payload, 0, cls.TYPE.name)
        return cls()


@dataclass(frozen=True)
class Hello(_Empty):
    TYPE: ClassVar[MsgType] = MsgType.HELLO


@dataclass(frozen=True)
class Info:
    TYPE: ClassVar[MsgType] = MsgType.INFO
    protocol: int
    max_eta: int
    real_bytes: int
    cycle_source: int
    board: str
    fw_version: str
    systems: int  # bit i set when system id i is built in

    @property
    def system_ids(self) -> list[int]:
        return [i for i in range(8) if self.systems >> i & 1]

    def pack(self) -> bytes:
        return (
            struct.pack("<HBBB", self.protocol, self.max_eta, self.real_bytes, self.cycle_source)
            + _pack_string(self.board)
            + _pack_string(self.fw_version)
            + bytes([self.systems])
        )

    @classmethod
    def unpack(cls, payload: bytes) -> "Info":
        if len(payload) < 5:
            raise ProtocolError("INFO: payload too short")
        protocol, max_eta, real_bytes, cycle_source = struct.unpack_from("<HBBB", payload)
        board, at = _string(payload, 5, "INFO")
        fw_version, at = _string(payload, at, "INFO")
        _need(payload[at:], 1, "INFO systems")
        return cls(protocol, max_eta, real_bytes, cycle_source, board, fw_version, payload[at])


_CONFIGURE_HEAD = struct.Struct("<BBBBB")
_CONFIGURE_TAIL = struct.Struct("<Bdd")


@dataclass(frozen=True)
class Configure:
    TYPE: ClassVar[MsgType] = MsgType.CONFIGURE
    system: int
    eta: int
    mode: int = Mode.REFINED
    likelihood: int = Likelihood.KERNEL
    params: tuple[float, ...] = ()
    prior_kind: int = PriorKind.GAUSSIAN
    prior_a: float = 0.0
    prior_b: float = 1.0

    def pack(self) -> bytes:
        params = tuple(float(p) for p in self.params)
        return (
            _CONFIGURE_HEAD.pack(self.system, self.eta, self.mode, self.likelihood, len(params))
            + struct.pack(f"<{len(params)}d", *params)
            + _CONFIGURE_TAIL.pack(self.prior_kind, self.prior_a, self.prior_b)
        )

    @classmethod
    def unpack(cls, payload: bytes) -> "Configure":
        if len(payload) < _CONFIGURE_HEAD.size + _CONFIGURE_TAIL.size:
            raise ProtocolError("CONFIGURE: payload too short")
        system, eta, mode, likelihood, n = _CONFIGURE_HEAD.unpack_from(payload)
        _need(payload, _CONFIGURE_HEAD.size + 8 * n + _CONFIGURE_TAIL.size, "CONFIGURE")
        params = struct.unpack_from(f"<{n}d", payload, _CONFIGURE_HEAD.size)
        kind, a, b = _CONFIGURE_TAIL.unpack_from(payload, _CONFIGURE_HEAD.size + 8 * n)
        return cls(system, eta, mode, likelihood, params, kind, a, b)


_CONFIGURED = struct.Struct("<BI")


@dataclass(frozen=True)
class Configured:
    TYPE: ClassVar[MsgType] = MsgType.CONFIGURED
    count: int  # atoms in the quantized prior
    workspace_bytes: int

    def pack(self) -> bytes:
        return _CONFIGURED.pack(self.count, self.workspace_bytes)

    @classmethod
    def unpack(cls, payload: bytes) -> "Configured":
        _need(payload, _CONFIGURED.size, "CONFIGURED")
        return cls(*_CONFIGURED.unpack(payload))


_STEP_HEAD = struct.Struct("<IBdHB")


@dataclass(frozen=True)
class Step:
    TYPE: ClassVar[MsgType] = MsgType.STEP
    k: int
    predict: bool
    u: float
    z: tuple[float, ...]
    w: tuple[float, ...] = field(default=())  # empty: one point observation, weight 1
    m: int = 1

    def pack(self) -> bytes:
        z = tuple(float(v) for v in self.z)
        w = tuple(float(v) for v in self.w) if self.w else tuple(1.0 / len(z) for _ in z)
        if len(w) != len(z):
            raise ValueError("evidence positions and weights differ in length")
        flags = STEP_FLAG_PREDICT if self.predict else 0
        pairs = [v for pair in zip(z, w) for v in pair]
        return _STEP_HEAD.pack(self.k, flags, self.u, self.m, len(z)) + struct.pack(f"<{len(pairs)}d", *pairs)

    @classmethod
    def unpack(cls, payload: bytes) -> "Step":
        if len(payload) < _STEP_HEAD.size:
            raise ProtocolError("STEP: payload too short")
        k, flags, u, m, n = _STEP_HEAD.unpack_from(payload)
        _need(payload, _STEP_HEAD.size + 16 * n, "STEP")
        pairs = struct.unpack_from(f"<{2 * n}d", payload, _STEP_HEAD.size)
        if flags & ~STEP_FLAG_PREDICT:
            raise ProtocolError(f"STEP: unknown flags 0x{flags:02x}")
        return cls(k, bool(flags & STEP_FLAG_PREDICT), u, pairs[0::2], pairs[1::2], m)


_POSTERIOR_HEAD = struct.Struct("<IBddQQB")


@dataclass(frozen=True)
class Posterior:
    TYPE: ClassVar[MsgType] = MsgType.POSTERIOR
    k: int
    status: int
    mean: float
    var: float
    cycles_predict: int  # u64: a step of the largest configurations exceeds 2^32 virtual cycles
    cycles_update: int
    x: tuple[float, ...]
    w: tuple[float, ...]

    @property
    def count(self) -> int:
        return len(self.x)

    @property
    def fallback(self) -> bool:
        return self.status == Status.FALLBACK

    def pack(self) -> bytes:
        pairs = [v for pair in zip(self.x, self.w) for v in pair]
        head = _POSTERIOR_HEAD.pack(
            self.k, self.status, self.mean, self.var, self.cycles_predict, self.cycles_update, len(self.x)
        )
        return head + struct.pack(f"<{len(pairs)}d", *pairs)

    @classmethod
    def unpack(cls, payload: bytes) -> "Posterior":
        if len(payload) < _POSTERIOR_HEAD.size:
            raise ProtocolError("POSTERIOR: payload too short")
        k, status, mean, var, cp, cu, n = _POSTERIOR_HEAD.unpack_from(payload)
        _need(payload, _POSTERIOR_HEAD.size + 16 * n, "POSTERIOR")
        pairs = struct.unpack_from(f"<{2 * n}d", payload, _POSTERIOR_HEAD.size)
        return cls(k, status, mean, var, cp, cu, pairs[0::2], pairs[1::2])


@dataclass(frozen=True)
class Reset(_Empty):
    TYPE: ClassVar[MsgType] = MsgType.RESET


@dataclass(frozen=True)
class ResetDone(_Empty):
    TYPE: ClassVar[MsgType] = MsgType.RESET_DONE


_ERROR = struct.Struct("<BH")


@dataclass(frozen=True)
class Error:
    TYPE: ClassVar[MsgType] = MsgType.ERROR
    code: int
    detail: int = 0

    @property
    def name(self) -> str:
        try:
            return "ERR_" + ErrorCode(self.code).name
        except ValueError:
            return f"error {self.code}"

    def pack(self) -> bytes:
        return _ERROR.pack(self.code, self.detail)

    @classmethod
    def unpack(cls, payload: bytes) -> "Error":
        _need(payload, _ERROR.size, "ERROR")
        return cls(*_ERROR.unpack(payload))


Message = Hello | Info | Configure | Configured | Step | Posterior | Reset | ResetDone | Error

MESSAGES: dict[int, type] = {
    cls.TYPE: cls for cls in (Hello, Info, Configure, Configured, Step, Posterior, Reset, ResetDone, Error)
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

