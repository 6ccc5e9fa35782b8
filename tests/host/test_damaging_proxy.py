"""uxhost.damaging_proxy over real sockets: frames relayed whole, damaged as asked in each direction,
counted, and the same damage for the same seed. The firmware behind it is in
tests/firmware/test_fw_damaged_link.py."""

import socket
import threading

import pytest

from uxhost import protocol as p
from uxhost.damaging_proxy import Damager, DamagingProxy


class Upstream:
    """A TCP server standing for the device: records every byte it receives until the relay closes its
    side, and sends `answer` (then closes its own side for writing)."""

    def __init__(self, answer: bytes = b""):
        self.answer = answer
        self.received = bytearray()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self.server.getsockname()[1]}"
        self.done = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        conn, _ = self.server.accept()
        with conn:
            conn.sendall(self.answer)
            conn.shutdown(socket.SHUT_WR)
            while data := conn.recv(4096):
                self.received += data
        self.done.set()
        self.server.close()


def relay(to_device: bytes, to_host: bytes = b"", chunk: int = 7, **options):
    """Both streams through a DamagingProxy at once: (what the device got, what the host got, counts)."""
    upstream = Upstream(to_host)
    with DamagingProxy(upstream.url, **options) as proxy:
        host = socket.create_connection(("127.0.0.1", int(proxy.url.rsplit(":", 1)[1])))
        with host:
            for at in range(0, len(to_device), chunk):  # frames split across reads, as a UART delivers them
                host.sendall(to_device[at : at + chunk])
            host.shutdown(socket.SHUT_WR)
            got = bytearray()
            while data := host.recv(4096):
                got += data
        assert upstream.done.wait(10)
        return bytes(upstream.received), bytes(got), proxy.counts


def frames(n: int, first_seq: int = 1) -> list[bytes]:
    """n distinct wire frames (HELLO with consecutive seqs), each with its delimiter."""
    return [p.encode(p.Hello(), first_seq + i) for i in range(n)]


def split(stream: bytes) -> list[bytes]:
    return [f + p.DELIMITER for f in stream.split(p.DELIMITER)[:-1] if f]


def test_undamaged_streams_pass_byte_for_byte():
    requests = b"".join(p.DELIMITER + f for f in frames(300))  # the host's leading delimiter, as link.py sends
    answers = b"".join(frames(300, 1000))
    device_got, host_got, counts = relay(requests, answers, rate=0.0)
    assert device_got == requests and host_got == answers
    assert counts["to_device"].frames == counts["to_host"].frames == 300  # empty frames are not counted
    assert counts["to_device"].damaged == counts["to_host"].damaged == 0


def test_every_frame_dropped_leaves_only_the_empty_frames():
    requests = b"".join(p.DELIMITER + f for f in frames(50))
    device_got, host_got, counts = relay(requests, b"".join(frames(40)), rate=1.0, kinds=("drop",))
    assert device_got == p.DELIMITER * 50 and host_got == b""
    assert (counts["to_device"].dropped, counts["to_host"].dropped) == (50, 40)


def test_every_frame_duplicated_arrives_twice_in_order():
    sent = frames(60)
    device_got, host_got, counts = relay(b"".join(sent), b"".join(sent), rate=1.0, kinds=("duplicate",))
    assert split(device_got) == split(host_got) == [f for f in sent for _ in range(2)]
    assert counts["to_device"].duplicated == counts["to_host"].duplicated == 60


def test_every_frame_flipped_differs_in_exactly_one_byte_of_its_own():
    sent = frames(200)
    stream = b"".join(sent)
    device_got, _, counts = relay(stream, rate=1.0, kinds=("flip",))
    assert len(device_got) == len(stream)  # a flip keeps the length (a 0x00 it makes cuts a frame in two)
    start = 0
    for f in sent:
        end = start + len(f)
        differ = [i for i in range(start, end) if device_got[i] != stream[i]]
        assert len(differ) == 1 and differ[0] < end - 1  # one byte, never the delimiter
        start = end
    assert counts["to_device"].flipped == 200 and counts["to_device"].damaged == 200


def test_a_fraction_is_damaged_and_the_same_seed_damages_the_same_frames():
    n = 10_000
    requests, answers = b"".join(frames(n)), b"".join(frames(n, 20_000))
    first = relay(requests, answers, chunk=4096, rate=0.1, seed=5)
    again = relay(requests, answers, chunk=1000, rate=0.1, seed=5)
    other = relay(requests, answers, chunk=4096, rate=0.1, seed=6)
    assert first[:2] == again[:2]  # however the bytes were cut into reads
    assert first[0] != other[0] and first[1] != other[1]
    for direction in ("to_device", "to_host"):
        c = first[2][direction]
        assert c.frames == n
        # 10 % of 10⁴ frames: 1,000 ± 30 (σ); each kind a third of them
        assert 880 <= c.damaged <= 1120, c
        assert all(250 <= k <= 420 for k in (c.flipped, c.dropped, c.duplicated)), c
    # each direction has its own draws: the two directions' damage differs
    assert first[2]["to_device"].as_dict() != first[2]["to_host"].as_dict()


def test_a_run_without_delimiter_longer_than_any_frame_is_passed_on_as_noise():
    noise = bytes(range(1, 256)) * 20  # 5,100 bytes, no 0x00
    device_got, _, counts = relay(noise + frames(1)[0], rate=0.0)
    assert device_got == noise + frames(1)[0]
    assert counts["to_device"].unframed_bytes > 0


@pytest.mark.parametrize("reads", [[7] * 800, [5200], [1000, 4200]])
def test_noise_is_noise_however_the_reads_fall(reads):
    # A loaded host's socket may hand the proxy the run's end and the next delimiter in one read (the last
    # two cases): the run is still noise, passed on and counted as such, never damaged as a frame.
    noise = bytes(range(1, 256)) * 20
    stream, damager, out, at = noise + frames(1)[0], Damager(1.0, 0, "to_device", ("flip",)), bytearray(), 0
    for size in reads:
        out += damager.feed(stream[at : at + size])
        at += size
    assert at >= len(stream) and bytes(out[:4000]) == noise[:4000]
    assert damager.counts.unframed_bytes >= 4000 and damager.counts.flipped <= 1


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(rate=1.5), "rate 1.5 is not a fraction"),
        (dict(kinds=("melt",)), "choose among flip, drop, duplicate"),
        (dict(kinds=()), "choose among"),
    ],
)
def test_bad_settings_are_one_clear_error(options, message):
    with pytest.raises(ValueError, match=message):
        DamagingProxy("socket://127.0.0.1:9", **options)


def test_upstream_must_be_a_tcp_address():
    with pytest.raises(ValueError, match=r"'/dev/ttyACM0' is not a TCP address \(socket://HOST:PORT\)"):
        DamagingProxy("/dev/ttyACM0")
