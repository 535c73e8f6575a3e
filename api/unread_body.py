"""Request bodies the app answered without reading (a 413 over a size cap, a 401 before the body).

A server that answers and closes while the client is still sending makes the client's next write
fail with a reset, which many clients report instead of the answer; one that announces keep-alive
and then closes leaves a client that reuses the connection with no answer at all. gunicorn decides
only after the answer is written (its threads drain 64 KiB and then close a connection they said
they would keep). So, before the answer is written, the rest of the body is read and thrown away,
at most DRAIN_BYTES within DRAIN_SECONDS, and the connection stays usable; a longer or stalled body
is left unread and the answer says `Connection: close`, so no client sends on it again. Never more
than DRAIN_BYTES is read: a body without end costs a bounded read, not the worker.

gunicorn.conf.py installs it for the web and console processes (pre_request and post_worker_init).
"""
from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterable
from typing import Any

from gunicorn.http.errors import ParseException

DRAIN_BYTES = 8 * 1024 * 1024
DRAIN_SECONDS = 10.0
_STEP = 64 * 1024

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# gunicorn's request being served by this thread (gthread) or greenlet (gevent, whose greenlets
# each have their own context).
_request: contextvars.ContextVar[Any] = contextvars.ContextVar("gunicorn_request", default=None)


def remember_request(req: Any) -> None:
    """gunicorn's pre_request hook: the request the app is about to be called for."""
    _request.set(req)


def draining_unread_bodies(app: WsgiApp) -> WsgiApp:
    """The app, followed by the drain of whatever part of the body it left unread."""
    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        result = app(environ, start_response)
        if environ.get("CONTENT_LENGTH", "0") == "0" and "HTTP_TRANSFER_ENCODING" not in environ:
            return result  # no body (most GETs): nothing to drain, not even a socket timeout to set
        req = _request.get()
        # gunicorn writes the status line and headers on the first body write, after this returns,
        # and announces `Connection: close` when the request must close.
        if req is not None and req.body is environ.get("wsgi.input") and not _drained(req.body, environ):
            req.must_close = True
        return result
    return serve


def _drained(body: Any, environ: dict[str, Any]) -> bool:
    """Whether the body is now read to its end, reading at most DRAIN_BYTES more."""
    sock = environ.get("gunicorn.socket")
    before = sock.gettimeout() if sock is not None else None
    deadline = time.monotonic() + DRAIN_SECONDS
    read = 0
    try:
        while read < DRAIN_BYTES:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if sock is not None:
                sock.settimeout(left)
            chunk = body.read(_STEP)
            if not chunk:
                return True
            read += len(chunk)
        return False
    except (OSError, ParseException):  # a stalled client (a timeout is an OSError) or a malformed chunk
        return False
    finally:
        if sock is not None:
            sock.settimeout(before)
