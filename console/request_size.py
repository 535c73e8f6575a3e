"""The console's request size limit (CONSOLE_MAX_UPLOAD_BYTES): Flask refuses a larger body before
reading it (MAX_CONTENT_LENGTH), and the user sees a page saying how large a file may be.

A server that answers and closes while the browser is still sending makes the browser show a
connection reset instead of that page, so the rest of the body is read and dropped first, up to
DRAIN_BYTES (a file picked by mistake, a video or an archive, is rarely larger); beyond that the
connection is closed unread.
"""
from __future__ import annotations

from flask import Flask, Response, make_response, render_template, request
from flask_babel import format_decimal

DRAIN_BYTES = 100_000_000
CHUNK = 1 << 16


def _drain() -> None:
    stream = request.environ["wsgi.input"]
    if request.content_length is not None:
        left = request.content_length
    elif request.environ.get("wsgi.input_terminated"):  # a chunked body the server ends for us
        left = DRAIN_BYTES
    else:
        return
    if left > DRAIN_BYTES:
        return
    while left > 0:
        data = stream.read(min(CHUNK, left))
        if not data:
            return
        left -= len(data)


def _too_large(error: Exception) -> Response:
    _drain()
    limit = request.max_content_length or 0
    response = make_response(render_template("errors/413.html", path=request.path,
                                             megabytes=format_decimal(limit / 1_000_000)), 413)
    response.headers["Connection"] = "close"
    return response


def limit_requests(app: Flask, max_bytes: int) -> None:
    app.config["MAX_CONTENT_LENGTH"] = max_bytes
    app.register_error_handler(413, _too_large)
