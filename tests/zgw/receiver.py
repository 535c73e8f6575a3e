"""A notification callback for the fakes' own tests: a real HTTP endpoint on 127.0.0.1 that takes what
the NRC fake posts, as a subscriber does, and answers as told.

    with Receiver(auth="Bearer s3cret") as receiver:   # 401 without that exact header
        receiver.answers = [500, 503]                  # the next authorised posts get these, then 204
        receiver.url, receiver.posts                   # [(Authorization or None, JSON body), ...]
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(self, *, auth: str | None, unauthorised_status: int = 401) -> None:
        self.auth = auth  # None: every post is taken, with or without a header
        self.unauthorised_status = unauthorised_status
        self.answers: list[int] = []
        self.posts: list[tuple[str | None, Any]] = []
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = False
        self._server.block_on_close = True
        self.url = f"http://127.0.0.1:{self._server.server_port}/zgw/notificaties"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="receiver")

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()

    def answer(self, authorization: str | None, body: Any) -> int:
        with self.lock:
            self.posts.append((authorization, body))
            if self.auth is not None and authorization != self.auth:
                return self.unauthorised_status
            return self.answers.pop(0) if self.answers else 204


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status = receiver.answer(self.headers.get("Authorization"), json.loads(raw or b"null"))
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
