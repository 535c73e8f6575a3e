"""The spec's error shape for requests gunicorn refuses before the app sees them.

A request line or headers over gunicorn's limits, a malformed request line, a bad chunk: gunicorn's
worker classifies these itself (Worker.handle_error picks the status, reason and message) and then
writes the answer with gunicorn.util.write_error, its one writer of error pages, as HTML. We keep
its classification and replace only that writer, from the post_worker_init hook in gunicorn.conf.py.
"""
from __future__ import annotations

import json
import socket

from gunicorn import util
from werkzeug.exceptions import default_exceptions

# Our own names where the app has one for the status (api/errors.py); werkzeug's otherwise, as the
# app's handler for HTTP exceptions answers.
_NAMES = {400: "BadRequestError", 500: "Exception"}


def error_name(status: int) -> str:
    exception = default_exceptions.get(status)
    return _NAMES.get(status) or (exception.__name__ if exception else "Exception")


def write_json_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn.util.write_error's signature, answering {"status_code", "errors": [...]} instead of HTML."""
    body = json.dumps({"status_code": status_int,
                       "errors": [{"error": error_name(status_int), "message": mesg or reason}]})
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, (head + body).encode("latin-1"))


def install() -> None:
    """Make this worker process answer gunicorn's own refusals in JSON."""
    util.write_error = write_json_error
