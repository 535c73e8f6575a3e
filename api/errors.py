"""The one place that turns exceptions into {"status_code": N, "errors": [{"error", "message"}]}."""
from __future__ import annotations

import logging

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException

from models.outages import UNAVAILABLE

# The error classes live in pipeline.errors (stages raise them too); the API names them from here.
from pipeline.errors import (  # noqa: F401
    ApiError,
    AuthError,
    BadRequestError,
    NoResultFound,
    PDFNotReadyError,
    RateLimitError,
    TooManyRequestsError,
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


def error_response(status_code: int, error: str, messages: list[str]) -> Response:
    response = jsonify(
        {"status_code": status_code, "errors": [{"error": error, "message": m} for m in messages]}
    )
    response.status_code = status_code
    return response


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> Response:
        return error_response(exc.status_code, exc.error, exc.messages)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        names = {404: ("ResourceNotFound", "The requested URL was not found on the server."),
                 405: ("MethodNotAllowed", "The method is not allowed for the requested URL.")}
        error, message = names.get(exc.code or 500, (type(exc).__name__, exc.description or exc.name))
        response = error_response(exc.code or 500, error, [message])
        if exc.code == 405 and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response

    def unavailable(exc: Exception) -> Response:
        # The database or Redis is down: nothing was recorded (a send's row and its count go
        # together), and the same request will work once it is back.
        log.warning("dependency unavailable: %r", exc)
        response = error_response(503, "ServiceUnavailableError", ["Service temporarily unavailable, try again later"])
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response

    for error in UNAVAILABLE:
        app.register_error_handler(error, unavailable)

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Response:
        log.exception("unhandled exception")
        return error_response(500, "Exception", ["Internal server error"])
