"""A device on the other end of a pyserial URL: a board's serial port, QEMU's ``socket://`` or ``loop://``.

One request, one answer (docs/protocol.md). A request whose answer does not arrive in time, or arrives
damaged, is resent as the very same bytes (same sequence number); the device answers a resent request
from memory, so no step is lost or applied twice. Answers to other sequence numbers (a late answer to an
earlier attempt) are skipped. Each session starts at a random sequence number, so that a new session's
first requests are not the numbers a previous session left in the device's retry memory.

How long to wait before resending is learnt from the device's answers, as TCP learns its retransmission
timeout (RFC 6298): per kind of request, a smoothed answer time SRTT and its mean deviation RTTVAR, from
requests answered at the first attempt only (Karn: the answer to a resent request may be either copy's).
The wait is SRTT + max(4·RTTVAR, SRTT/2), at least RTO_FLOOR, and RTO_INITIAL until a kind has been
measured; never more than the link's timeout (the ceiling). A wait that ends in silence doubles the next
waits of that kind (up to the ceiling) until a request is answered at once again. A request is given
up once its attempts have used (retries + 1) ceilings: the time a silent device has always been given.
Silences, damaged answers and requests the device could not read are counted apart, and the message of
a request given up says which it met.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Sequence

import serial

from . import protocol as p

DEFAULT_TIMEOUT = 5.0
# The wait before HELLO is sent again on a link whose steps may take minutes (a slow configuration under
# QEMU): a board whose UART was not listening yet dropped the first one, and booting takes well under it.
BOOT_HELLO_TIMEOUT = 10.0
# No answer is longer than this on the wire; a longer run without a delimiter is noise, not a frame.
_MAX_WIRE = p.MAX_FRAME + p.MAX_FRAME // 254 + 2
DEFAULT_RETRIES = 3
# The shortest wait before a resend, however fast and steady the answers have been: a frame lost on a
# fast link costs about this much. A busy host's moment of delay longer than the wait costs a resend that
# the device answers from memory, and the next waits of its kind double, so the floor only needs to stay
# clear of the usual jitter, which RTTVAR measures; it is no protection the link depends on.
RTO_FLOOR = 0.03
# The wait before a kind of request has been measured (RFC 6298's initial RTO). A slower answer costs a few
# resends, answered from memory, and the backoff doubles the wait up to the ceiling meanwhile.
RTO_INITIAL = 1.0

# Errors the device sends with seq 0 because it could not trust (or read) a request's header: if one
# arrives while a request is outstanding, that request may have been damaged on the way, so it is resent.
_FRAME_ERRORS = {p.ErrorCode.CRC, p.ErrorCode.LENGTH, p.ErrorCode.TOO_LONG, p.ErrorCode.COBS}


def system_message(spec) -> p.System:
    """The SYSTEM answer that describes a system table spec, scalar (uxemu.systems.SystemSpec) or joint
    (uxemu.joint_systems.JointSpec): what a device built with that table answers to DESCRIBE;
    Device.systems() reads such answers back into specs."""
    from .joint import dim_obs_of

    dim = getattr(spec, "dim", 1)
    priors = (spec.prior,) if dim == 1 else spec.prior
    return p.System(
        spec.id,
        spec.name,
        spec.title,
        dim,
        1 if dim == 1 else dim_obs_of(spec),
        tuple((q.name, q.default, p.ParamDomain[q.domain.upper()]) for q in spec.params),
        tuple((p.PriorKind[law.upper()], a, b) for law, a, b in priors),
    )


class LinkError(Exception):
    """Base of every error of the link."""


class DeviceNotFound(LinkError):
    """The port (device path or socket) cannot be opened."""


class DeviceTimeout(LinkError):
    """The device did not answer intact in the time a request is given."""


class LinkDamaged(DeviceTimeout):
    """A request given up although the device was heard: its answers, or the request itself, were
    damaged on the way (a noisy line). Its message counts what the attempts met."""


class AnswerTimer:
    """The smoothed answer time of one kind of request and the wait before a resend that follows from it
    (RFC 6298's SRTT, RTTVAR and RTO with exponential backoff)."""

    def __init__(self):
        self.srtt: float | None = None  # seconds
        self.rttvar = 0.0
        self.backoff = 1  # doubled by each silence, back to 1 at the next measured answer
        self.samples = 0

    def sample(self, took: float) -> None:
        """An answer `took` seconds after its request, which was sent once."""
        if self.srtt is None:
            self.srtt, self.rttvar = took, took / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - took)
            self.srtt = 0.875 * self.srtt + 0.125 * took
        self.backoff = 1
        self.samples += 1

    def silence(self) -> None:
        self.backoff = min(self.backoff * 2, 1 << 16)

    def wait(self, ceiling: float) -> float:
        """Seconds to wait for an answer before resending (at most `ceiling`)."""
        rto = RTO_INITIAL if self.srtt is None else max(RTO_FLOOR, self.srtt + max(4 * self.rttvar, self.srtt / 2))
        return min(ceiling, rto * self.backoff)


@dataclass
class Attempts:
    """What the attempts of one request met."""

    sent: int = 0
    silences: int = 0  # attempts whose wait ended without an answer
    damaged: int = 0  # answers that arrived damaged (CRC, COBS, length)
    unread: int = 0  # frame errors with seq 0: the device could not read a frame, perhaps the request
    waits: list = field(default_factory=list)  # the wait of each attempt that ended in silence, s


class VersionMismatch(LinkError):
    """Firmware and host speak different protocol versions."""


class DeviceError(LinkError):
    """The device answered a request with ERROR."""

    def __init__(self, code: int, detail: int, request: str = "request"):
        self.code = code
        self.detail = detail
        name = p.Error(code, detail).name
        super().__init__(f"device rejected {request}: {name} (detail {detail})")


class Device:
    """A device speaking the ux-filter link protocol. Use :meth:`open`; close it or use ``with``."""

    def __init__(
        self,
        port: serial.SerialBase,
        url: str,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        first_seq: int | None = None,
    ):
        """`first_seq` (1…65535) numbers the first request; by default it is drawn at random."""
        if first_seq is None:
            first_seq = secrets.randbelow(0xFFFF) + 1
        if not 1 <= first_seq <= 0xFFFF:
            raise ValueError(f"first_seq {first_seq} is not in 1..65535")
        self.port = port
        self.url = url
        self.timeout = timeout
        self.retries = retries
        self.resends = 0  # requests sent again because an answer was late or the request was damaged
        self.silences = 0  # attempts that met silence (an answer later than the wait, or none)
        self.damaged = 0  # answers that arrived damaged
        self.unread = 0  # frame errors (seq 0) the device sent while a request was outstanding
        self.timers: dict[str, AnswerTimer] = {}  # by kind of request (HELLO, STEP, …)
        self._seq = first_seq - 1  # the last number used; next_seq() steps past it
        self._rx = bytearray()

    @classmethod
    def open(
        cls,
        url: str,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        baudrate: int = 115200,
        first_seq: int | None = None,
    ) -> "Device":
        try:
            port = serial.serial_for_url(url, baudrate=baudrate, timeout=0.05)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise DeviceNotFound(f"cannot open {url}: {exc}") from exc
        return cls(port, url, timeout=timeout, retries=retries, first_seq=first_seq)

    def close(self) -> None:
        self.port.close()

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # ---------------------------------------------------------------------------------------------
    # Messages

    def hello(self, timeout: float | None = None) -> p.Info:
        """INFO of the device. `timeout` (default: the link's) bounds the wait before HELLO is sent again:
        a device that booted after the first HELLO reached it answers the resend."""
        info = self.request(p.Hello(), p.Info, timeout)
        if info.protocol != p.PROTOCOL_VERSION:
            raise VersionMismatch(
                f"device at {self.url} speaks protocol {info.protocol} (firmware {info.fw_version!r}); "
                f"this host speaks {p.PROTOCOL_VERSION}: flash a matching firmware or update the host"
            )
        return info

    def systems(self, info: p.Info | None = None) -> dict:
        """The device's systems by name, as it describes them (DESCRIBE 0 … n_systems − 1), as
        uxemu.systems.SystemSpec (dim 1) or DeviceJointSpec — the same shapes the system table gives the host."""
        from uxemu.systems import Param, SystemSpec

        from .joint import DeviceJointSpec

        info = info or self.hello()
        specs = {}
        for index in range(info.n_systems):
            s = self.request(p.Describe(index), p.System)
            try:
                params = tuple(
                    Param(name, default, p.ParamDomain(domain).name.lower()) for name, default, domain in s.params
                )
                priors = tuple((p.PriorKind(kind).name.lower(), a, b) for kind, a, b in s.priors)
            except ValueError as exc:
                raise p.ProtocolError(f"SYSTEM {s.name!r}: {exc}") from None
            if s.dim == 1:
                specs[s.name] = SystemSpec(s.id, s.name, s.title, params, priors[0])
            else:
                specs[s.name] = DeviceJointSpec(s.id, s.name, s.title, params, priors, s.dim, s.dim_obs)
        return specs

    def configure(
        self,
        system: int,
        eta: int,
        mode: int = p.Mode.REFINED,
        likelihood: int = p.Likelihood.KERNEL,
        params: Sequence[float] = (),
        priors: Sequence[tuple[int, float, float]] = ((p.PriorKind.GAUSSIAN, 0.0, 1.0),),
    ) -> p.Configured:
        """CONFIGURE: priors holds (PriorKind, a, b) per state component."""
        msg = p.Configure(
            int(system),
            int(eta),
            int(mode),
            int(likelihood),
            tuple(float(v) for v in params),
            tuple((int(kind), float(a), float(b)) for kind, a, b in priors),
        )
        return self.request(msg, p.Configured)

    def step(
        self,
        k: int,
        predict: bool,
        u: float,
        evidence_z: float | Sequence[float] | None,
        evidence_w: Sequence[float] | None = None,
        m: int = 1,
        timeout: float | None = None,
        dim_obs: int = 1,
    ) -> p.Posterior:
        """One filter step; evidence_z the evidence rows of dim_obs values, packed (a number: one scalar
        observation; None: a missing observation, no evidence, m = 0, predict only)."""
        if evidence_z is None:
            z: tuple[float, ...] = ()
        elif isinstance(evidence_z, (int, float)):
            z = (float(evidence_z),)
        else:
            z = tuple(float(v) for v in evidence_z)
        m = m if z else 0
        w = tuple(float(v) for v in evidence_w) if evidence_w is not None else ()
        post = self.request(p.Step(int(k), bool(predict), float(u), z, w, int(m), int(dim_obs)), p.Posterior, timeout)
        if post.k != k:
            raise p.ProtocolError(f"POSTERIOR for step {post.k}, expected {k}")
        return post

    def reset(self) -> None:
        self.request(p.Reset(), p.ResetDone)

    # ---------------------------------------------------------------------------------------------
    # Requests

    def next_seq(self) -> int:
        """The next sequence number: first_seq, first_seq + 1, …, 65535, 1, … (0 is never used)."""
        self._seq = self._seq % 0xFFFF + 1
        return self._seq

    def request(self, message: p.Message, expect: type | None = None, timeout: float | None = None):
        """Sends `message` with a fresh seq, resending it on silence or damage (module docstring), and
        returns the answer's message. `timeout` (default: the link's) is the ceiling of each wait.
        An ERROR answer raises DeviceError (VersionMismatch for ERR_VERSION)."""
        seq = self.next_seq()
        wire = p.encode(message, seq)
        name = type(message).__name__.upper()
        frame, answer = self._exchange(wire, seq, name, self.timeout if timeout is None else timeout)
        if frame.version != p.PROTOCOL_VERSION:
            raise VersionMismatch(
                f"device at {self.url} answered with protocol version {frame.version}; "
                f"this host speaks {p.PROTOCOL_VERSION}"
            )
        if isinstance(answer, p.Error):
            if answer.code == p.ErrorCode.VERSION:
                raise VersionMismatch(f"device at {self.url} refused protocol version {answer.detail}")
            raise DeviceError(answer.code, answer.detail, name)
        if expect is not None and not isinstance(answer, expect):
            wanted = " or ".join(e.__name__ for e in (expect if isinstance(expect, tuple) else (expect,)))
            raise p.ProtocolError(f"{name} answered with {type(answer).__name__}, expected {wanted}")
        return answer

    def _exchange(self, wire: bytes, seq: int, name: str, ceiling: float) -> tuple[p.Frame, p.Message]:
        # A leading delimiter ends whatever partial frame the device may hold (a host that died mid-frame,
        # line noise), so this request starts on a frame boundary; the device ignores empty frames.
        timer = self.timers.setdefault(name, AnswerTimer())
        budget = (self.retries + 1) * ceiling  # the time a silent device is given
        met = Attempts()
        used = 0.0  # of the budget: each silence its whole wait, each other end the time it took
        first = time.monotonic()
        while True:
            if met.sent:
                self.resends += 1
            wait = timer.wait(ceiling)
            began = time.monotonic()
            self.send_raw(p.DELIMITER + wire)
            met.sent += 1
            sent = time.monotonic()
            ended, answer = self._await(seq, sent + wait)
            if answer is not None:
                if met.sent == 1:
                    timer.sample(time.monotonic() - sent)
                return answer
            setattr(met, ended, getattr(met, ended) + 1)
            setattr(self, ended, getattr(self, ended) + 1)
            if ended == "silences":
                met.waits.append(wait)
                used += wait
                timer.silence()
            else:
                used += min(wait, time.monotonic() - began)
            if used >= budget * (1 - 1e-9):
                raise self._given_up(name, seq, met, ceiling, time.monotonic() - first)

    def _await(self, seq: int, deadline: float):
        """("answer", (frame, message)) when the answer to `seq` arrives intact by `deadline`; else how the
        attempt ended, with None: "silences", "damaged" (an answer that arrived damaged) or "unread" (a frame
        error from the device, which may have failed to read the request)."""
        while True:
            try:
                raw = self.read_wire(deadline=deadline)
            except DeviceTimeout:
                return "silences", None
            try:
                frame = p.decode_frame(raw)
                answer = p.unpack_message(frame)
            except p.ProtocolError:
                return "damaged", None  # damaged on the way back: ask again, the device answers from memory
            if frame.seq == seq:
                return "answer", (frame, answer)
            if frame.seq == 0 and isinstance(answer, p.Error) and answer.code in _FRAME_ERRORS:
                return "unread", None  # the device could not read a frame: perhaps ours
            # anything else is a late answer to an earlier request: skip it

    def _given_up(self, name: str, seq: int, met: Attempts, ceiling: float, took: float) -> DeviceTimeout:
        where = f"device at {self.url}"
        if not met.damaged and not met.unread:
            if all(w >= ceiling * (1 - 1e-9) for w in met.waits):
                return DeviceTimeout(
                    f"{where} did not answer {name} (seq {seq}) in {met.sent} attempts of {ceiling:g} s"
                )
            return DeviceTimeout(
                f"{where} did not answer {name} (seq {seq}) in {met.sent} attempts ({took:.3g} s; "
                f"waits of {min(met.waits):.3g} to {max(met.waits):.3g} s, at most {ceiling:g} s)"
            )
        heard = []
        if met.damaged:
            heard.append(f"{met.damaged} answer(s) arrived damaged")
        if met.unread:
            heard.append(f"{met.unread} time(s) the device could not read the request")
        return LinkDamaged(
            f"{where} was heard but no answer to {name} (seq {seq}) arrived intact in {met.sent} "
            f"attempts ({took:.3g} s): {', '.join(heard)}, {met.silences} attempt(s) met silence; "
            f"the line damages frames (a loose cable, a wrong baud rate, noise)"
        )

    # ---------------------------------------------------------------------------------------------
    # Raw access (tests and diagnostics)

    def send_raw(self, data: bytes) -> None:
        """Writes bytes to the link as they are."""
        try:
            self.port.write(data)
            self.port.flush()
        except (serial.SerialException, OSError) as exc:
            raise DeviceNotFound(f"lost {self.url}: {exc}") from exc

    def read_wire(self, timeout: float | None = None, deadline: float | None = None) -> bytes:
        """The next non-empty frame as it came off the wire, without its delimiter."""
        if deadline is None:
            deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            end = self._rx.find(0)
            while end == 0:  # empty frame
                del self._rx[:1]
                end = self._rx.find(0)
            if end > 0:
                raw = bytes(self._rx[:end])
                del self._rx[: end + 1]
                return raw
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeviceTimeout(f"no frame from {self.url}")
            try:
                wait = min(remaining, 0.25)
                if self.port.timeout != wait:
                    self.port.timeout = wait
                chunk = self.port.read(max(1, self.port.in_waiting))
            except (serial.SerialException, OSError) as exc:
                raise DeviceNotFound(f"lost {self.url}: {exc}") from exc
            self._rx += chunk
            if self._rx.find(0) < 0 and len(self._rx) > _MAX_WIRE:
                self._rx.clear()

    def read_frame(self, timeout: float | None = None) -> p.Frame:
        """The next frame, decoded and CRC-checked (ProtocolError when it is not a valid frame)."""
        return p.decode_frame(self.read_wire(timeout))

    def read_message(self, timeout: float | None = None) -> tuple[p.Frame, p.Message]:
        frame = self.read_frame(timeout)
        return frame, p.unpack_message(frame)
