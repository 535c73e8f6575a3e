"""What the gateways' shared transport makes of each way a request can fail, against raw sockets on
127.0.0.1 that fail in exactly that way: urllib3's behaviour (2.x) as we found it, pinned.

Certainly not sent (RetryableProviderError, tried again): a refused connection, a reset while the
request was being written, a reset before the server read it (a kept-alive connection closed as the
request arrived included). Outcome unknown: the request written whole, then no answer or a clean close.
"""
from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from email.utils import formatdate

import pytest

from pipeline.infrastructure.providers.errors import OutcomeUnknownError, RateLimited, RetryableProviderError
from pipeline.infrastructure.providers.sms.transport import Transport

Behaviour = Callable[[socket.socket], None]
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"id\": \"g-1\"}"


class RawServer:
    """Accepts connections and hands each to `behaviour` in a thread of its own; counts them."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour, self.connections = behaviour, 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.behaviour, args=(conn,), daemon=True).start()


@pytest.fixture
def serve() -> Iterator[Callable[[Behaviour], RawServer]]:
    servers: list[RawServer] = []

    def start(behaviour: Behaviour) -> RawServer:
        servers.append(RawServer(behaviour))
        return servers[-1]

    yield start
    for server in servers:
        server.sock.close()


def reset(conn: socket.socket) -> None:
    """Close with RST, as a server dropping the connection abruptly does."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += conn.recv(65536)
    return body


def post(server: RawServer, body: bytes = b'{"to": "+31612345678"}', transport: Transport | None = None,
         timeout: float = 2.0) -> bytes:
    transport = transport or Transport(server.url, timeout)
    return transport.post(f"{server.url}/messages", body, {"Content-Type": "application/json"}, what="gw").data


def test_a_refused_connection_was_certainly_not_sent() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(RetryableProviderError, match="gw unreachable: NewConnectionError") as raised:
        Transport(f"http://127.0.0.1:{port}", 2).post(f"http://127.0.0.1:{port}/m", b"{}", {}, what="gw")
    assert raised.value.certainly_not_delivered


def test_a_reset_before_the_server_read_the_request_was_not_sent(serve) -> None:
    # The request lies in the server's socket buffer, unread, when it resets: the gateway never saw it.
    server = serve(lambda conn: (time.sleep(0.1), reset(conn)))
    with pytest.raises(RetryableProviderError, match="reset the connection before reading the request"):
        post(server)


def test_a_reset_while_the_request_is_written_is_not_sent(serve) -> None:
    # urllib3 swallows the reset while sending and then reads: it reports the same error as a clean
    # close after the request. Only the body's handover says the request never went out whole.
    def take_a_little_then_reset(conn: socket.socket) -> None:
        conn.recv(1000)
        time.sleep(0.1)
        reset(conn)

    server = serve(take_a_little_then_reset)
    with pytest.raises(RetryableProviderError, match="connection lost before the request was sent") as raised:
        post(server, body=b"x" * 16_000_000)
    assert "RemoteDisconnected" in str(raised.value) or "ConnectionResetError" in str(raised.value)


def test_a_clean_close_after_reading_the_request_leaves_the_outcome_unknown(serve) -> None:
    server = serve(lambda conn: (read_request(conn), conn.close()))
    with pytest.raises(OutcomeUnknownError, match="gw did not answer: ProtocolError.*RemoteDisconnected") as raised:
        post(server)
    assert not raised.value.certainly_not_delivered


def test_no_answer_within_the_timeout_leaves_the_outcome_unknown(serve) -> None:
    server = serve(lambda conn: (read_request(conn), time.sleep(3), conn.close()))
    with pytest.raises(OutcomeUnknownError, match="ReadTimeoutError"):
        post(server, timeout=0.3)


def test_an_answer_cut_short_leaves_the_outcome_unknown(serve) -> None:
    def half_an_answer(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"id\"")
        time.sleep(0.05)
        reset(conn)

    with pytest.raises(OutcomeUnknownError, match="gw answer cut short"):
        post(serve(half_an_answer))


def keep_alive_then(after: Callable[[socket.socket], None]) -> Behaviour:
    """Answer the first request and keep the connection; then `after` decides its end."""
    def behaviour(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(ANSWER)
        after(conn)
    return behaviour


@pytest.mark.parametrize("close", [lambda conn: conn.close(), reset], ids=["closed", "reset"])
def test_a_kept_alive_connection_the_server_dropped_while_idle_is_not_used(serve, close) -> None:
    server = serve(keep_alive_then(lambda conn: (time.sleep(0.1), close(conn))))
    transport = Transport(server.url, 2)
    assert post(server, transport=transport) == b'{"id": "g-1"}'
    time.sleep(0.3)

    assert post(server, transport=transport) == b'{"id": "g-1"}'  # on a connection of its own
    assert server.connections == 2


def test_a_kept_alive_connection_closed_as_the_request_arrived_was_not_sent(serve) -> None:
    # The server's idle close crosses our request: closed with it unread, the connection is reset.
    def close_when_the_next_request_arrives(conn: socket.socket) -> None:
        conn.recv(1, socket.MSG_PEEK)
        conn.close()

    server = serve(keep_alive_then(close_when_the_next_request_arrives))
    transport = Transport(server.url, 2)
    assert post(server, transport=transport) == b'{"id": "g-1"}'
    # Reset as the headers arrived: the body's send fails (urllib3 then reads a clean close), or the
    # reset comes after it. Either way the server never read the request.
    with pytest.raises(RetryableProviderError, match="before the request was sent|before reading the request"):
        post(server, transport=transport)
    assert post(server, transport=transport) == b'{"id": "g-1"}'  # tried again, on a new connection


def too_many(retry_after: str | None) -> Behaviour:
    header = f"Retry-After: {retry_after}\r\n".encode() if retry_after is not None else b""

    def behaviour(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 429 Too Many Requests\r\nContent-Length: 4\r\n" + header + b"\r\nslow")
        conn.close()
    return behaviour


@pytest.mark.parametrize(("header", "seconds"), [
    ("7", 7.0), (None, None), ("soon", None), ("86400", 3600.0), ("an HTTP date 30 s ahead", 30.0),
])
def test_a_429_says_how_long_to_hold_off(serve, header: str | None, seconds: float | None) -> None:
    if header == "an HTTP date 30 s ahead":
        header = formatdate(time.time() + 30, usegmt=True)
    with pytest.raises(RateLimited, match="gw answered 429: slow") as raised:
        post(serve(too_many(header)))
    assert raised.value.certainly_not_delivered
    if seconds is None:
        assert raised.value.retry_after is None
    else:
        assert raised.value.retry_after == pytest.approx(seconds, abs=1.5)
