"""Connections as clients see them, with the web process served as the Procfile serves it (gunicorn
with gunicorn.conf.py: gevent workers on PostgreSQL, threads on SQLite).

An oversized body is answered 413 in the API's error shape every time, never with a reset or a
connection closed without an answer, whether it comes with a Content-Length or chunked, and on a
connection the client pools; an idle connection outlives a client's pause between requests, yet a
stopping server closes it within seconds instead of waiting out the keep-alive time.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from notifications_python_client.notifications import NotificationsAPIClient

from api.providers.delivery_receipts import MAX_BODY_BYTES
from api.unread_body import DRAIN_BYTES
from config import get_settings
from tests.conftest import _free_port, gunicorn_server
from tests.factories import create_key, create_sample_template

RECEIPTS = "/providers/http-gateway/delivery-receipts"
TOO_LARGE = {"status_code": 413, "errors": [{"error": "RequestEntityTooLarge",
                                              "message": "The data value transmitted exceeds the capacity limit."}]}


@pytest.fixture(scope="module")
def web() -> Iterator[str]:
    with gunicorn_server("--workers", "1") as url:
        yield url


def _provider_headers(token: str | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token or get_settings().provider_webhook_token}"}


def _body(size: int, framing: str) -> bytes | Iterator[bytes]:
    """A JSON array of `size` bytes; chunked when sent as a generator (requests sends no length)."""
    if framing == "content-length":
        return b"[" + b" " * (size - 2) + b"]"

    def chunks() -> Iterator[bytes]:
        yield b"["
        left = size - 2
        while left > 0:
            yield b" " * min(left, 65536)
            left -= 65536
        yield b"]"
    return chunks()


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
@pytest.mark.parametrize("size, connection", [
    (MAX_BODY_BYTES + 100_000, "keep-alive"),  # a little over the cap: drained, the connection stays usable
    (2 * DRAIN_BYTES, "close"),  # far over: left unread, and the answer says the connection closes
])
def test_an_oversized_receipt_body_is_answered_413_every_time(web, framing, size, connection):
    # One pooled session, as the official clients keep: a connection the server closed after saying
    # keep-alive would leave the next request without an answer.
    with requests.Session() as session:
        for _ in range(20):
            response = session.post(f"{web}{RECEIPTS}", data=_body(size, framing), headers=_provider_headers(),
                                    timeout=30)
            assert (response.status_code, response.json()) == (413, TOO_LARGE)
            assert response.headers["Connection"] == connection


def test_a_body_exactly_at_the_cap_is_read(web):
    body = json.dumps([{"id": "x", "status": "delivered"}]).encode()
    padded = body[:-1] + b" " * (MAX_BODY_BYTES - len(body)) + b"]"
    for data in (padded, iter([padded])):
        response = requests.post(f"{web}{RECEIPTS}", data=data, headers=_provider_headers(), timeout=30)
        assert (response.status_code, response.json()) == (200, {"result": "success"})


def test_a_body_refused_before_it_is_read_leaves_the_connection_usable(web):
    with requests.Session() as session:
        for _ in range(5):
            refused = session.post(f"{web}{RECEIPTS}", data=_body(MAX_BODY_BYTES, "content-length"),
                                   headers=_provider_headers("wrong"), timeout=30)
            assert refused.status_code == 403
            assert refused.json()["errors"] == [{"error": "AuthError",
                                                 "message": "Invalid token: provider token not valid"}]
            assert refused.headers["Connection"] == "keep-alive"


def _remote_ports(log: Path, path: str) -> list[str]:
    messages = [json.loads(line)["message"] for line in log.read_text().splitlines() if line.strip()]
    return [message.split()[0] for message in messages if message.split()[1] == path]


def test_the_official_client_pausing_between_calls_is_answered_on_the_same_connection(service, tmp_path):
    template = create_sample_template(service=service, body="Hallo")
    key = create_key(service=service, key_type="test", name="test")
    log = tmp_path / "access.log"
    # The access log names the client's port of each request: one port is one connection.
    with gunicorn_server("--workers", "1", "--access-logfile", str(log),
                         "--access-logformat", "%({remote_port}e)s %(U)s") as url:
        api = NotificationsAPIClient(key, base_url=url)
        first = api.get_template(str(template.id))
        time.sleep(4)  # longer than gunicorn's own keep-alive (2 s), which closed the connection meanwhile
        second = api.get_template(str(template.id))
    assert first["body"] == second["body"] == "Hallo"
    ports = _remote_ports(log, f"/v2/template/{template.id}")
    assert len(ports) == 2 and ports[0] == ports[1]


def _keep_alive_request(sock: socket.socket) -> bytes:
    sock.sendall(b"GET /_live HTTP/1.1\r\nHost: localhost\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        received = sock.recv(65536)
        assert received, f"connection closed after {answer!r}"
        answer += received
    return answer


# Bounds for a loaded 2-core machine, where a worker can take tens of seconds to import the app: each
# wait ends as soon as its condition holds. The server's graceful timeout is set well above the bound
# on its closing the idle connection, so waiting that timeout out still fails the test.
WAIT_SECONDS = 60
GRACEFUL_TIMEOUT_SECONDS = 3 * WAIT_SECONDS


def test_a_stopping_server_closes_an_idle_kept_alive_connection_and_exits(tmp_path):
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "app:app", "--bind", f"127.0.0.1:{port}",
                               "--workers", "1", "--graceful-timeout", str(GRACEFUL_TIMEOUT_SECONDS)],
                              cwd=Path(__file__).resolve().parents[2], env={**os.environ, "WEB_ACCESS_LOG": ""},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_SECONDS)
                break
            except OSError:
                assert time.monotonic() < deadline, f"gunicorn did not listen within {WAIT_SECONDS} s"
                time.sleep(0.1)
        with sock:
            # The master listens before its worker has loaded the app: the first answer waits for that.
            answer = _keep_alive_request(sock)
            assert answer.startswith(b"HTTP/1.1 200") and b"Connection: keep-alive" in answer
            server.send_signal(signal.SIGTERM)
            # A request arriving just after the stop on the kept connection is still answered.
            assert _keep_alive_request(sock).startswith(b"HTTP/1.1 200")
            # The server closes the idle connection itself (an empty read is its FIN), instead of
            # holding it open until its graceful timeout, as a connection waiting out its keep-alive
            # time once made it do (the socket's timeout bounds the wait).
            assert sock.recv(1) == b""
        assert server.wait(timeout=WAIT_SECONDS) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
