"""A local TCP peer that speaks the link's framing: the base of the scripted devices in the host tests."""
import socket
import threading

from uxhost import protocol as p


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
        conn, _ = self.server.accept()
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
