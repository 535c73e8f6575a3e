"""An HTTP front for a fake gateway that takes `per_second` requests a second and answers the rest
429 Too Many Requests with a Retry-After, as rate-limited APIs do (RFC 6585 section 4, RFC 9110
section 10.2.3; Twilio, for one: https://www.twilio.com/docs/api/errors/20429). What it takes it
passes to the gateway behind it, and passes back the gateway's answer.

    with FakeGateway() as gateway, RateLimitedFront(gateway.url, per_second=20) as front:
        ...                                   # front.url: what the service uses
        front.taken, front.refused            # requests passed on, requests answered 429

Its limit is a bucket of `per_second` requests, refilled at `per_second` a second: a burst of up to
a second's worth passes, a steady pace above it does not.
"""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import urllib3

FORWARDED_HEADERS = ("Content-Type", "Authorization", "Accept")


class RateLimitedFront:
    def __init__(self, upstream_url: str, *, per_second: int, retry_after: str = "1") -> None:
        self.upstream_url = upstream_url.rstrip("/")
        self.per_second, self.retry_after = per_second, retry_after
        self.taken = self.refused = 0
        self._tokens, self._refilled = float(per_second), time.monotonic()
        self._lock = threading.Lock()
        self._pool = urllib3.PoolManager(maxsize=64, retries=False)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_port}"

    def __enter__(self) -> RateLimitedFront:
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _take(self) -> bool:
        with self._lock:
            now = time.monotonic()
            self._tokens = min(float(self.per_second), self._tokens + (now - self._refilled) * self.per_second)
            self._refilled = now
            if self._tokens >= 1:
                self._tokens -= 1
                self.taken += 1
                return True
            self.refused += 1
            return False

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        front = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not front._take():
                    self._answer(429, b'{"error": "Too many requests"}', {"Retry-After": front.retry_after})
                    return
                headers = {name: self.headers[name] for name in FORWARDED_HEADERS if self.headers.get(name)}
                answer = front._pool.request("POST", front.upstream_url + self.path, body=body, headers=headers)
                self._answer(answer.status, answer.data, {})

            def _answer(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
