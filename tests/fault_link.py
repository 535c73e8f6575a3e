"""A TCP link in front of a fake gateway that fails as real gateways and their front ends fail.

    with FakeGateway() as gateway, FaultLink(gateway.url) as link:      # link.url: what the service uses
        link.silence(30)      # stops answering: requests still reach the gateway, which takes them,
                              # but no answer comes back; when the silence ends, each connection
                              # still waiting is closed without its answer (FIN)
        link.reset_new(3)     # then, for 3 s, every new connection is reset (RST) before anything on
                              # it reaches the gateway, and idle kept-alive connections are reset too

`counts` says how many connections were reset, had their answer dropped by a silence, were closed
without an answer (still open when it ended: a client that gave up first closed its own), and
forwarded.
"""
from __future__ import annotations

import collections
import contextlib
import socket
import struct
import threading
import time
from urllib.parse import urlsplit

CHUNK = 65536


def _reset(sock: socket.socket) -> None:
    """Close with RST, as a front end dropping a connection abruptly does."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()


class _Connection:
    def __init__(self, client: socket.socket, upstream: socket.socket) -> None:
        self.client, self.upstream = client, upstream
        self.waiting = False  # a request went up and its answer has not come back yet
        self.held = False  # an answer was held back by a silence
        self.done = False


class FaultLink:
    def __init__(self, upstream_url: str) -> None:
        parts = urlsplit(upstream_url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.path = parts.path
        self.counts: collections.Counter = collections.Counter()
        self._silent_until = 0.0
        self._reset_until = 0.0
        self._connections: set[_Connection] = set()
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}{self.path}"
        self._running = True

    def __enter__(self) -> FaultLink:
        threading.Thread(target=self._accept, daemon=True).start()
        threading.Thread(target=self._watch, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._running = False
        self._listener.close()
        with self._lock:
            for connection in list(self._connections):
                self._close(connection)

    def silence(self, seconds: float) -> None:
        with self._lock:
            self._silent_until = time.monotonic() + seconds

    def reset_new(self, seconds: float) -> None:
        """From the end of any silence, for `seconds`: new connections are reset, and idle ones."""
        with self._lock:
            self._reset_until = max(time.monotonic(), self._silent_until) + seconds

    def _silent(self) -> bool:
        return time.monotonic() < self._silent_until

    def _resetting(self) -> bool:
        return not self._silent() and time.monotonic() < self._reset_until

    def _accept(self) -> None:
        while self._running:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._resetting():
                time.sleep(0.01)  # the request is in our buffer, unread, when the reset goes out
                _reset(client)
                self.counts["reset new"] += 1
                continue
            try:
                upstream = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                _reset(client)
                continue
            upstream.settimeout(None)
            connection = _Connection(client, upstream)
            with self._lock:
                self._connections.add(connection)
            self.counts["forwarded"] += 1
            threading.Thread(target=self._pump_up, args=(connection,), daemon=True).start()
            threading.Thread(target=self._pump_down, args=(connection,), daemon=True).start()

    def _pump_up(self, connection: _Connection) -> None:
        """The client's bytes to the gateway; none once the link has decided to reset it."""
        while True:
            try:
                data = connection.client.recv(CHUNK)
            except OSError:
                data = b""
            with self._lock:
                if connection.done or not data:
                    self._close(connection)
                    return
                connection.waiting = True
                with contextlib.suppress(OSError):
                    connection.upstream.sendall(data)

    def _pump_down(self, connection: _Connection) -> None:
        """The gateway's answers to the client, unless a silence holds them back."""
        while True:
            try:
                data = connection.upstream.recv(CHUNK)
            except OSError:
                data = b""
            with self._lock:
                if connection.done or not data:
                    self._close(connection)
                    return
                if self._silent():
                    if not connection.held:  # dropped: the gateway took the text, its answer never comes
                        self.counts["answer dropped"] += 1
                    connection.held = True
                    continue
                connection.waiting = False
                with contextlib.suppress(OSError):
                    connection.client.sendall(data)

    def _watch(self) -> None:
        """When a silence ends: connections with a held answer are closed without it (FIN); idle
        kept-alive connections are reset while resetting lasts."""
        while self._running:
            time.sleep(0.05)
            with self._lock:
                if self._silent():
                    continue
                for connection in list(self._connections):
                    if connection.held:
                        self.counts["closed without an answer"] += 1
                        self._close(connection)
                    elif self._resetting() and not connection.waiting:
                        self.counts["reset idle"] += 1
                        self._close(connection, reset=True)

    def _close(self, connection: _Connection, reset: bool = False) -> None:
        """Called with the lock held."""
        if connection.done:
            return
        connection.done = True
        self._connections.discard(connection)
        if reset:
            _reset(connection.client)
        else:
            with contextlib.suppress(OSError):
                connection.client.shutdown(socket.SHUT_RDWR)
            connection.client.close()
        with contextlib.suppress(OSError):
            connection.upstream.close()
