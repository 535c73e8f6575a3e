"""POST /v2/notifications/sms and /email, the requests nearly all of the API's load is, answered
without Flask's request machinery.

Flask's request and application contexts, routing, hooks and response object cost about 0.1 ms of
CPU for even an empty JSON endpoint on gunicorn (a quarter of the whole request), which is most of
what separates an accept from the least one can be (issue #34, docs/decisions/speed.md). A request for one
of these two paths, by POST, without a query string, is answered here; every other request, these
paths with a query string included, goes on to the Flask app, whose routes for them stay the
documented ones and call the same `accept`. Both answer through the same pieces: authentication
(api.auth.service_caller), the accept (api.v2.notifications.sending), errors (api.errors.describe),
request ids and metrics (api.monitoring), the database connection's borrowing (models.db).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.wsgi import get_input_stream

from api.auth import service_caller
from api.errors import describe, error_body
from api.monitoring import REQUEST_ID_HEADER, begin_request, count_request
from api.v2.notifications.post_email import email_response
from api.v2.notifications.post_sms import sms_response
from api.v2.notifications.sending import accept
from models.db import enter_request, leave_request
from observability import logs
from workers.sending import enqueue_deliveries

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# Each path (the metrics' route label too): its channel and the answer to a send accepted on it.
_ROUTES = {
    "/v2/notifications/sms": ("sms", sms_response),
    "/v2/notifications/email": ("email", email_response),
}
_STATUS_LINES = {code: f"{code} {phrase.upper()}" for code, phrase in HTTP_STATUS_CODES.items()}


def send_door(app: WsgiApp, dumps: Callable[[Any], str]) -> WsgiApp:
    """app with the two send routes answered first; dumps encodes a JSON body as the app's do."""
    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        route = _ROUTES.get(path)
        if route is None or environ["REQUEST_METHOD"] != "POST" or environ.get("QUERY_STRING"):
            return app(environ, start_response)
        return _send(environ, start_response, path, *route, dumps)
    return serve


def _send(environ: dict[str, Any], start_response: Callable[..., Any], path: str, channel: str,
          respond: Callable[..., dict], dumps: Callable[[Any], str]) -> Iterable[bytes]:
    started = time.perf_counter()
    request_id = begin_request(environ)
    was_open = enter_request()
    key_type, error = "", ""
    headers: dict[str, str] = {}
    try:
        caller = service_caller(environ.get("HTTP_AUTHORIZATION"))
        key_type = caller.key_type
        body, status = accept(caller, channel, get_input_stream(environ).read(),
                              environ.get("HTTP_IDEMPOTENCY_KEY"), enqueue_deliveries, respond)
    except Exception as exc:  # every failure answers in the error shape, as the app's handlers do
        status, error, messages, headers = describe(exc)
        body = error_body(status, error, messages)
    finally:
        leave_request(was_open)
    payload = f"{dumps(body)}\n".encode()
    count_request(path, "POST", status, time.perf_counter() - started, key_type, error)
    logs.clear()
    start_response(_STATUS_LINES[status], [
        ("Content-Type", "application/json"), ("Content-Length", str(len(payload))),
        (REQUEST_ID_HEADER, request_id), *headers.items()])
    return [payload]
