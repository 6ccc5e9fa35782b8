"""Mutated frames into a running device (the firmware in QEMU, or any board): the golden frames'
requests (tests/golden/frames.toml) mutated four ways and sent one at a time.

- flip: one byte of the wire frame XORed with 1…255 (a flip to 0x00 cuts it into two frames);
- truncate: the wire frame cut short;
- insert: 1…8 random bytes inserted into the wire frame;
- payload: the decoded frame changed — payload bytes flipped, set to 0x00 or 0xFF, cut or extended, or
  the header's type, version or length changed — and sent with a valid CRC and valid COBS, so that it
  passes the frame checks and reaches the message decoder.

Each mutated frame meets the device in the state its case gives it: a RESET first, then, for a STEP, the
case's own CONFIGURE before it, so that a STEP's fields reach a configured filter.

Oracle: every non-empty frame sent (a mutation can cut one in two) is answered by exactly one frame, and
that answer is a valid frame of the protocol (uxhost.protocol decodes it: COBS, CRC, a device → host
type, a payload of its layout) in the protocol's version. Its seq is the request's when the CRC vouches
for the request's header, and then a non-error answer is the one the request's type asks for; otherwise
it is an ERROR with a frame-level code (COBS, length, too long, CRC) and seq 0. A device that does not
answer within the timeout has stopped answering: that ends the run as a failure. Afterwards the same
device must still stream a whole trace whose dump validates (uxhost.validate, as `uxhost validate`).
"""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from uxhost import link
from uxhost import protocol as p

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "frames.toml"
MUTATIONS = ("flip", "truncate", "insert", "payload")
# Each request and the answers it may get besides an ERROR (a mutated frame can become any request whose
# payload happens to parse: a STEP whose type bit flips is a CONFIGURE, answered CONFIGURED).
ANSWERS = {
    p.Hello: (p.Info,),
    p.Describe: (p.System,),
    p.Configure: (p.Configured,),
    p.Step: (p.Posterior,),
    p.Reset: (p.ResetDone,),
}
FRAME_ERRORS = {p.ErrorCode.CRC, p.ErrorCode.LENGTH, p.ErrorCode.TOO_LONG, p.ErrorCode.COBS}


class OracleFailure(AssertionError):
    """An answer that is not what the protocol promises, or no answer at all."""


@dataclass(frozen=True)
class Request:
    case: str
    wire: bytes  # COBS frame with its delimiter, as recorded
    configure: bytes | None  # the case's last CONFIGURE before it (wire), sent first when this is a STEP


def golden_requests(path: Path = GOLDEN) -> list[Request]:
    """Every request of every golden case, with the CONFIGURE a STEP of that case runs under."""
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    for case in table["case"]:
        configure = None
        for exchange in case["exchange"]:
            wire = bytes.fromhex(exchange["request"])
            kind = exchange.get("sent", {}).get("message")
            out.append(Request(case["name"], wire, configure if kind == "Step" else None))
            if kind == "Configure":
                configure = wire
    return out


def mutate(wire: bytes, kind: str, rng: random.Random) -> bytes:
    """One mutation of a wire frame (delimiter included); the result carries its own delimiter."""
    body = bytearray(wire[:-1])
    if kind == "payload":
        if expected_seq(bytes(body)) is None:
            kind = "flip"  # a golden request whose CRC is itself wrong: nothing to re-CRC
        else:
            raw = p.cobs_decode(bytes(body))
            while (changed := _mutate_decoded(bytearray(raw[: -p.CRC.size]), rng)) == raw:
                pass  # a change that changed nothing (a byte set to the value it had, an empty payload cut)
            return p.cobs_encode(changed) + p.DELIMITER
    if kind == "flip":
        body[rng.randrange(len(body))] ^= rng.randrange(1, 256)
    elif kind == "truncate":
        del body[rng.randrange(1, len(body)) :]
    elif kind == "insert":
        at = rng.randrange(len(body) + 1)
        body[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    else:
        raise ValueError(f"unknown mutation {kind!r} (known: {', '.join(MUTATIONS)})")
    return bytes(body) + p.DELIMITER


def _mutate_decoded(frame: bytearray, rng: random.Random) -> bytes:
    """header ‖ payload changed, with the CRC of the result appended (the length field is kept in step
    with the payload unless it is the length that is changed)."""
    header, payload = frame[: p.HEADER.size], frame[p.HEADER.size :]
    what = rng.choice(("flip", "flip", "extreme", "cut", "extend", "header"))
    if what == "flip" and payload:
        for _ in range(rng.randint(1, 3)):
            payload[rng.randrange(len(payload))] ^= rng.randrange(1, 256)
    elif what == "extreme" and payload:
        payload[rng.randrange(len(payload))] = rng.choice((0x00, 0xFF, 0x7F, 0x80))
    elif what == "cut" and payload:
        del payload[rng.randrange(len(payload)) :]
    elif what == "extend":
        # now and then past MAX_PAYLOAD: a frame longer than any the device may hold
        n = rng.choice((rng.randint(1, 16), p.MAX_PAYLOAD + 1 - len(payload)))
        payload += bytes(rng.randrange(256) for _ in range(n))
    version, type_, seq, _ = p.HEADER.unpack(header)
    length = len(payload)
    if what == "header":
        field_ = rng.choice(("version", "type", "length"))
        if field_ == "version":
            version = rng.choice((0, p.PROTOCOL_VERSION - 1, p.PROTOCOL_VERSION + 1, rng.randrange(256)))
        elif field_ == "type":
            type_ = rng.randrange(256)
        else:
            length = (length + rng.choice((-1, 1, rng.randrange(1, 0x10000)))) % 0x10000
    body = p.HEADER.pack(version, type_, seq, length) + bytes(payload)
    return body + p.CRC.pack(p.crc32(body))


def expected_seq(fragment: bytes) -> int | None:
    """The seq of a request's header once the CRC vouches for it; None when it does not (the device then
    cannot trust the header: its answer is a frame-level ERROR with seq 0)."""
    try:
        raw = p.cobs_decode(fragment)
    except p.ProtocolError:
        return None
    if not p.HEADER.size + p.CRC.size <= len(raw) <= p.MAX_FRAME:
        return None
    body = raw[: -p.CRC.size]
    if p.crc32(body) != p.CRC.unpack(raw[-p.CRC.size :])[0]:
        return None
    return p.HEADER.unpack_from(body)[2]


def _request_type(fragment: bytes):
    """The request message class of a frame whose CRC is valid and whose type is known, else None."""
    try:
        frame = p.parse_frame(p.cobs_decode(fragment))
    except p.ProtocolError:
        return None
    cls = p.MESSAGES.get(frame.type)
    return cls if cls in ANSWERS else None


@dataclass
class Tally:
    mutated: dict = field(default_factory=lambda: dict.fromkeys(MUTATIONS, 0))  # frames sent, by mutation
    reached_decoder: int = 0  # mutated frames with a valid CRC: answered by the message decoder, not the framing
    frames_sent: int = 0  # non-empty frames sent, setup frames included
    answers: dict = field(default_factory=dict)  # answers by message name (ERROR by its code's name)

    @property
    def mutated_frames(self) -> int:
        return sum(self.mutated.values())


class Sender:
    """Sends frames to a device and holds every answer to the oracle."""

    def __init__(self, device: link.Device, timeout: float = 10.0):
        self.device = device
        self.timeout = timeout
        self.tally = Tally()
        self._seq = 0

    def send(self, wire: bytes) -> list[p.Message]:
        """Sends `wire` after a delimiter and checks one answer for each non-empty frame it holds."""
        self.device.send_raw(p.DELIMITER + wire)
        answers = []
        for fragment in (f for f in wire.split(p.DELIMITER) if f):
            self.tally.frames_sent += 1
            answers.append(self._check(fragment, self._read(fragment)))
        return answers

    def reset(self) -> None:
        self._seq = self._seq % 0xFFFF + 1
        [answer] = self.send(p.encode(p.Reset(), self._seq))
        if not isinstance(answer, p.ResetDone):
            raise OracleFailure(f"RESET answered with {answer}")

    def _read(self, fragment: bytes) -> bytes:
        try:
            return self.device.read_wire(timeout=self.timeout)
        except link.DeviceTimeout:
            raise OracleFailure(
                f"no answer within {self.timeout:g} s to the frame {fragment.hex()}: " f"the device stopped answering"
            ) from None

    def _check(self, fragment: bytes, answer: bytes) -> p.Message:
        where = f"answer {answer.hex()} to {fragment.hex()}"
        try:
            frame, message = p.decode(answer)
        except p.ProtocolError as exc:
            raise OracleFailure(f"{where} is not a valid frame: {exc}") from None
        if frame.version != p.PROTOCOL_VERSION:
            raise OracleFailure(f"{where} has version {frame.version}")
        if not any(type(message) in kinds for kinds in ANSWERS.values()) and not isinstance(message, p.Error):
            raise OracleFailure(f"{where} is a {type(message).__name__}, not an answer")
        seq = expected_seq(fragment)
        if seq is None:
            if not (isinstance(message, p.Error) and message.code in FRAME_ERRORS and frame.seq == 0):
                raise OracleFailure(
                    f"{where}: a frame the CRC does not vouch for must get a frame-level ERROR "
                    f"with seq 0, not {message} with seq {frame.seq}"
                )
        else:
            if frame.seq != seq:
                raise OracleFailure(f"{where} has seq {frame.seq}, the request's is {seq}")
            asked = _request_type(fragment)
            if not isinstance(message, p.Error) and (asked is None or type(message) not in ANSWERS[asked]):
                raise OracleFailure(
                    f"{where}: a {type(message).__name__} does not answer "
                    f"{asked.__name__ if asked else 'that frame'}"
                )
        name = message.name if isinstance(message, p.Error) else p.MsgType(frame.type).name
        self.tally.answers[name] = self.tally.answers.get(name, 0) + 1
        return message


def run(device: link.Device, frames: int, seed: int = 0, timeout: float = 10.0) -> Tally:
    """`frames` mutated frames (mutations in turn, requests drawn at random) into `device`; raises
    OracleFailure at the first answer the protocol does not allow."""
    rng = random.Random(seed)
    requests = golden_requests()
    sender = Sender(device, timeout)
    for i in range(frames):
        kind = MUTATIONS[i % len(MUTATIONS)]
        request = rng.choice(requests)
        sender.reset()
        if request.configure is not None:
            sender.send(request.configure)
        wire = mutate(request.wire, kind, rng)
        sender.send(wire)
        sender.tally.mutated[kind] += 1
        sender.tally.reached_decoder += any(expected_seq(f) is not None for f in wire.split(p.DELIMITER) if f)
    sender.reset()  # still answering, and in a known state
    return sender.tally


def stream_validates(device: link.Device, dump: Path, steps: int = 50, seed: int = 3):
    """Streams a GSS trace (η = 8, or the device's largest if smaller) to `device` into `dump` and
    compares it with the reference as `uxhost validate` does: the Comparison."""
    import numpy as np

    from uxemu import systems, traces
    from uxhost.config import ModelConfig
    from uxhost.dump import load_dump
    from uxhost.streaming import stream_trace
    from uxhost.validate import compare

    model = systems.get("gss")
    trace = traces.simulate(model, steps, np.random.default_rng(seed))
    eta = min(8, device.hello().max_eta)
    config = ModelConfig(
        "gss", tuple(model.params), eta, "refined", "kernel", "gaussian", model.prior.mu, model.prior.sigma
    )
    stream_trace(device, trace, config, dump, progress=False)
    return compare(load_dump(dump))
