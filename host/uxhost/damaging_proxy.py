"""A TCP relay that damages the link's frames on their way, to test what the link's sequence numbers
and resends are worth on a bad line.

Put between a host and a device whose serial port is a TCP socket (QEMU's UART, a serial-to-TCP
bridge): the host opens ``proxy.url`` instead of the device's. In each direction the relay cuts the
byte stream at the 0x00 delimiters and, per non-empty frame, with probability `rate` damages it in one
of three ways: flips one byte (XOR with a value 1…255; a flip to 0x00 cuts the frame in two, as line
noise would), drops the frame, or sends it twice. Empty frames (the host's leading delimiter) pass
untouched. Each direction draws from its own RNG, seeded from `seed` and the direction, so the same
frames in the same order are damaged the same way: a run is reproducible for a seed. It counts what
it did, per direction.

    with DamagingProxy(qemu.url, rate=0.1, seed=1) as proxy, Device.open(proxy.url) as device:
        ...
    print(proxy.counts["to_device"].dropped)
"""

from __future__ import annotations

import random
import socket
import threading
from dataclasses import dataclass, fields
from urllib.parse import urlsplit

from . import protocol as p

KINDS = ("flip", "drop", "duplicate")
DIRECTIONS = ("to_device", "to_host")
# Bytes without a delimiter are held until one arrives; a run longer than any frame's wire size is not a
# frame but noise, and is passed on as it is rather than held without bound.
_HOLD_LIMIT = p.MAX_FRAME + p.MAX_FRAME // 254 + 2


@dataclass
class Counts:
    """What the relay did to one direction's frames (empty frames are not counted)."""

    frames: int = 0  # frames seen
    flipped: int = 0
    dropped: int = 0
    duplicated: int = 0
    unframed_bytes: int = 0  # bytes passed on as they were: a run without a delimiter longer than any frame

    @property
    def damaged(self) -> int:
        return self.flipped + self.dropped + self.duplicated

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)} | {"damaged": self.damaged}


def _address(url: str) -> tuple[str, int]:
    """(host, port) of 'socket://HOST:PORT' or 'HOST:PORT'."""
    parts = urlsplit(url if "://" in url else f"socket://{url}")
    if parts.scheme != "socket" or not parts.hostname or parts.port is None:
        raise ValueError(f"{url!r} is not a TCP address (socket://HOST:PORT)")
    return parts.hostname, parts.port


class Damager:
    """The damage of one direction: frames in, the bytes to pass on out."""

    def __init__(self, rate: float, seed: int, direction: str, kinds=KINDS):
        self.rate = rate
        self.kinds = tuple(kinds)
        self.rng = random.Random(f"{seed}:{direction}")
        self.counts = Counts()
        self._held = bytearray()

    def feed(self, data: bytes) -> bytes:
        """The bytes to pass on for `data`, the next bytes of the stream; a frame is passed on (or not)
        once its delimiter has arrived."""
        self._held += data
        if 0 not in data and len(self._held) <= _HOLD_LIMIT:
            return b""  # QEMU's UART sends a byte at a time: most calls end here
        out = bytearray()
        while (end := self._held.find(0)) >= 0:
            frame = bytes(self._held[:end])
            del self._held[: end + 1]
            if len(frame) > _HOLD_LIMIT:  # noise whose delimiter came in the same read: not a frame either
                self.counts.unframed_bytes += len(frame)
                out += frame + p.DELIMITER
            else:
                out += self._frame(frame) if frame else p.DELIMITER
        if len(self._held) > _HOLD_LIMIT:
            self.counts.unframed_bytes += len(self._held)
            out += self._held
            self._held.clear()
        return bytes(out)

    def _frame(self, frame: bytes) -> bytes:
        self.counts.frames += 1
        if self.rng.random() >= self.rate:
            return frame + p.DELIMITER
        kind = self.rng.choice(self.kinds)
        if kind == "drop":
            self.counts.dropped += 1
            return b""
        if kind == "duplicate":
            self.counts.duplicated += 1
            return (frame + p.DELIMITER) * 2
        self.counts.flipped += 1
        at = self.rng.randrange(len(frame))
        flipped = bytearray(frame)
        flipped[at] ^= self.rng.randrange(1, 256)
        return bytes(flipped) + p.DELIMITER


class DamagingProxy:
    """Listens on 127.0.0.1 at an ephemeral port (``url``); each connection made to it is relayed to
    `upstream` (``socket://HOST:PORT``), one connection at a time, with its frames damaged as the module
    says. `rate` is the fraction of frames damaged in each direction, `kinds` the damage drawn from."""

    def __init__(self, upstream: str, rate: float = 0.1, seed: int = 0, kinds=KINDS):
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate {rate} is not a fraction in [0, 1]")
        unknown = set(kinds) - set(KINDS)
        if unknown or not kinds:
            raise ValueError(f"kinds {tuple(kinds)}: choose among {', '.join(KINDS)}")
        self.upstream = _address(upstream)
        self.damagers = {d: Damager(rate, seed, d, kinds) for d in DIRECTIONS}
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self._server.getsockname()[1]}"
        self._open: list[socket.socket] = []
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name="damaging-proxy", daemon=True)
        self._thread.start()

    @property
    def counts(self) -> dict[str, Counts]:
        return {d: damager.counts for d, damager in self.damagers.items()}

    def _serve(self) -> None:
        while not self._closed:
            try:
                host_side, _ = self._server.accept()
            except OSError:
                return  # closed
            try:
                device_side = socket.create_connection(self.upstream)
            except OSError:
                host_side.close()  # the host sees its link closed, as with the device itself gone
                continue
            self._open = [host_side, device_side]
            pumps = [
                threading.Thread(
                    target=self._pump, args=(host_side, device_side, self.damagers["to_device"]), daemon=True
                ),
                threading.Thread(
                    target=self._pump, args=(device_side, host_side, self.damagers["to_host"]), daemon=True
                ),
            ]
            for t in pumps:
                t.start()
            for t in pumps:
                t.join()
            for s in (host_side, device_side):
                s.close()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, damager: Damager) -> None:
        """Relays one direction until its source closes, then closes the other side for writing (and the
        source for reading, so that the other direction ends too)."""
        try:
            while data := source.recv(4096):
                out = damager.feed(data)
                if out:
                    sink.sendall(out)
        except OSError:
            pass
        for s, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass

    def close(self) -> None:
        """Stops listening and ends the connection being relayed."""
        self._closed = True
        try:
            self._server.shutdown(socket.SHUT_RDWR)  # wakes the accept() in progress (close alone may not)
        except OSError:
            pass
        self._server.close()
        for s in self._open:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=5)

    def __enter__(self) -> "DamagingProxy":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
