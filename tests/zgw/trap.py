"""A host that is not any of the configured ZGW roots, recording whatever reaches it: a forged message
that points there must bring it nothing, least of all our credentials."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Recorder(BaseHTTPRequestHandler):
    def _record(self) -> None:
        self.server.seen.append((self.command, self.path, dict(self.headers)))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PUT = do_DELETE = _record

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def trap() -> Iterator[tuple[str, list]]:
    """(its root, the requests it saw: method, path, headers)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", server.seen  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
