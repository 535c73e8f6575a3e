"""The one place that turns exceptions into {"status_code": N, "errors": [{"error", "message"}]}."""
from __future__ import annotations

import logging

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException

from models.outages import UNAVAILABLE

# The error classes live in pipeline.domain.errors (stages raise them too); the API names them from here.
from pipeline.domain.errors import (  # noqa: F401
    ApiError,
    AuthError,
    BadRequestError,
    InProgress,
    Misconfigured,
    NoResultFound,
    NotPermitted,
    PDFNotReadyError,
    RateLimitError,
    TooManyRequestsError,
    Unavailable,
    ValidationError,
)

log = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = 5  # what a 503 tells clients to wait: outages we ride out are restarts


# Every error body, as data (the OpenAPI document's Error schema).
ERROR_RESPONSE = {
    "type": "object",
    "required": ["status_code", "errors"],
    "properties": {
        "status_code": {"type": "integer"},
        "errors": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["error", "message"],
                "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}


class Unauthenticated(AuthError):
    """No credentials, or not of the scheme the API takes: who calls is not known at all."""


# Each kind of refusal as the API answers it: the HTTP status and the error's name. A kind not
# listed answers as the nearest one it is a kind of.
ANSWERS: dict[type[ApiError], tuple[int, str]] = {
    ApiError: (400, "BadRequestError"),
    ValidationError: (400, "ValidationError"),
    PDFNotReadyError: (400, "PDFNotReadyError"),
    Unauthenticated: (401, "AuthError"),
    AuthError: (403, "AuthError"),
    NotPermitted: (403, "BadRequestError"),
    NoResultFound: (404, "NoResultFound"),
    InProgress: (409, "BadRequestError"),
    Misconfigured: (409, "ConfigurationError"),
    RateLimitError: (429, "RateLimitError"),
    TooManyRequestsError: (429, "TooManyRequestsError"),
    Unavailable: (503, "BadRequestError"),
}


def answer_of(error: ApiError) -> tuple[int, str]:
    """The status code and error name the API answers this refusal with."""
    return next(ANSWERS[kind] for kind in type(error).__mro__ if kind in ANSWERS)


def error_body(status_code: int, error: str, messages: list[str]) -> dict:
    return {"status_code": status_code, "errors": [{"error": error, "message": m} for m in messages]}


def error_response(status_code: int, error: str, messages: list[str]) -> Response:
    response = jsonify(error_body(status_code, error, messages))
    response.status_code = status_code
    return response


_HTTP_NAMES = {404: ("ResourceNotFound", "The requested URL was not found on the server."),
               405: ("MethodNotAllowed", "The method is not allowed for the requested URL.")}


def describe(exc: Exception) -> tuple[int, str, list[str], dict[str, str]]:
    """An exception no route handled as its answer: status, error name, messages and extra headers.
    The Flask app's handler and the send door (api/send_door.py) both answer through it."""
    if isinstance(exc, HTTPException):
        code = exc.code or 500
        error, message = _HTTP_NAMES.get(code, (type(exc).__name__, exc.description or exc.name))
        allowed = getattr(exc, "valid_methods", None) if code == 405 else None
        return code, error, [message], {"Allow": ", ".join(allowed)} if allowed else {}
    if isinstance(exc, ApiError):
        return *answer_of(exc), exc.messages, {}
    if isinstance(exc, UNAVAILABLE):
        # The database or Redis is down: nothing was recorded (a send's row and its count go
        # together), and the same request will work once it is back.
        log.warning("dependency unavailable: %r", exc)
        return (503, "ServiceUnavailableError", ["Service temporarily unavailable, try again later"],
                {"Retry-After": str(RETRY_AFTER_SECONDS)})
    log.exception("unhandled exception", exc_info=exc)
    return 500, "Exception", ["Internal server error"], {}


def register_error_handlers(app: Flask) -> None:
    # Flask hands HTTP errors (404, 405, 413...) to a handler of Exception too, routing redirects aside.
    @app.errorhandler(Exception)
    def any_error(exc: Exception) -> Response:
        status, error, messages, headers = describe(exc)
        response = error_response(status, error, messages)
        response.headers.update(headers)
        return response
