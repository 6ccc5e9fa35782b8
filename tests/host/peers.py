"""A local TCP peer that speaks the link's framing, the base of the scripted devices in the host tests, and
ReferenceDevice, such a peer with the Python reference as its firmware."""

import socket
import threading
import time

import numpy as np

import uxemu
from uxhost import protocol as p
from uxhost.link import system_message


class FramePeer:
    """Accepts one connection on 127.0.0.1, splits the byte stream at 0x00 delimiters and hands each
    decoded frame to `on_frame(conn, frame, message)`; returning False from it closes the connection."""

    def __init__(self):
        self.raw = bytearray()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self.server.getsockname()[1]}"
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def on_frame(self, conn, frame: p.Frame, message) -> bool:
        raise NotImplementedError

    def _run(self):
        try:
            conn, _ = self.server.accept()
        except OSError:  # closed unconnected: the command under test refused its input before opening the link
            return
        with conn:
            buf = bytearray()
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                self.raw += data
                buf += data
                while 0 in buf:
                    end = buf.index(0)
                    chunk, buf = bytes(buf[:end]), buf[end + 1 :]
                    if chunk and self.on_frame(conn, *p.decode(chunk)) is False:
                        return

    def close(self):
        self.server.close()


class ReferenceDevice(FramePeer):
    """A device speaking the link protocol, with the reference filter as its firmware.

    `protocol` is the version its INFO claims, `reset_cause` the reason it gives for its last start; `die_after` closes the connection after that many STEPs;
    `silent` reads and never answers; `refuse_configure` answers CONFIGURE with ERR_CONFIG; `refuse_step`
    answers the STEP of that k with ERR_INTERNAL."""

    def __init__(
        self,
        protocol=p.PROTOCOL_VERSION,
        die_after=None,
        silent=False,
        max_eta=64,
        refuse_configure=False,
        refuse_step=None,
        reset_cause=p.ResetCause.POWER_ON,
    ):
        self.protocol, self.die_after, self.silent, self.reset_cause = protocol, die_after, silent, reset_cause
        self.max_eta, self.refuse_configure, self.refuse_step = max_eta, refuse_configure, refuse_step
        self.steps = 0
        self.requests = []
        self.filter = None
        self.last_frame, self.last_answer = None, b""
        super().__init__()

    def on_frame(self, conn, frame, message):
        self.requests.append(message)
        if self.silent:
            return True
        if isinstance(message, p.Step) and self.die_after is not None and self.steps >= self.die_after:
            return False  # closing the connection: the device is gone
        # The retry memory a device keeps (docs/protocol.md): the same frame again (a host that resent it
        # because the answer was slower than its wait) is answered from memory, not executed twice.
        if frame.seq != 0 and frame == self.last_frame:
            conn.sendall(self.last_answer)
            return True
        answer = self._answer(message)
        wire = p.encode(answer, frame.seq)
        if not isinstance(answer, p.Error):
            self.last_frame, self.last_answer = frame, wire
        conn.sendall(wire)
        return True

    def _answer(self, message):
        if isinstance(message, p.Hello):
            return p.Info(
                self.protocol,
                self.max_eta,
                8,
                p.CycleSource.HOST_NS,
                self.reset_cause,
                "reference-device",
                "ref-1",
                len(uxemu.systems.SPECS),
            )
        if isinstance(message, p.Describe):  # the reference's systems, described as firmware does
            return system_message(uxemu.systems.SPECS[list(uxemu.systems.SPECS)[message.index]])
        if isinstance(message, p.Configure) and self.refuse_configure:
            return p.Error(p.ErrorCode.CONFIG, 5)
        if isinstance(message, p.Configure):
            model = uxemu.systems.from_param_vector(message.system, message.params)
            [(kind, a, b)] = message.priors
            law = (uxemu.laws.Normal if kind == p.PriorKind.GAUSSIAN else uxemu.laws.Laplace)(a, b)
            self.filter = uxemu.BayesLaplaceFilter(
                model,
                message.eta,
                uxemu.filter.MODES[message.mode],
                ("kernel", "sampler")[message.likelihood],
                prior=law,
            )
            return p.Configured(len(self.filter.posterior), 0)
        if isinstance(message, p.Step) and message.k == self.refuse_step:
            return p.Error(p.ErrorCode.INTERNAL, 3)
        if isinstance(message, p.Step):
            t0 = time.perf_counter_ns()
            evidence = (np.array(message.z), np.array(message.w)) if message.z else None  # none: missing
            status = self.filter.step(message.k, evidence, message.u, predict=message.predict, m=message.m)
            took = time.perf_counter_ns() - t0
            self.steps += 1
            post = self.filter.posterior
            return p.Posterior(
                message.k,
                int(status),
                self.filter.log_evidence,
                0,
                took,
                (post.mean(),),
                (self.filter.variance(),),
                tuple(post.w),
                tuple(post.x),
            )
        return p.Error(p.ErrorCode.TYPE, message.TYPE)
