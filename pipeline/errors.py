"""The errors a request is refused with, in the spec's words and status codes.

They live here, not in the API layer, because pipeline stages that run inside a request (files sent by
email, recipients) refuse with them too; api.errors turns them into the JSON error shape.
"""
from __future__ import annotations

BLANK = "cannot be blank"  # "<field> cannot be blank": a text given with nothing but spaces


class ApiError(Exception):
    status_code = 400
    error = "BadRequestError"

    def __init__(self, *messages: str, status_code: int | None = None) -> None:
        super().__init__(messages[0] if messages else "")
        self.messages = list(dict.fromkeys(messages))  # each problem once, in order
        if status_code is not None:
            self.status_code = status_code


class BadRequestError(ApiError):
    pass


class ValidationError(ApiError):
    error = "ValidationError"


class Misconfigured(ApiError, ValueError):
    """Settings that cannot work, a line each naming the setting and what is wrong with it
    (pipeline/provider_settings.py). A process that uses them refuses to start, /_status names them,
    and a request that needs them is answered 409 rather than failing inside."""
    error = "ConfigurationError"
    status_code = 409


class AuthError(ApiError):
    error = "AuthError"
    status_code = 403


NO_RESULT = "No result found"


class NoResultFound(ApiError):
    error = "NoResultFound"
    status_code = 404

    def __init__(self, message: str = NO_RESULT) -> None:
        super().__init__(message)


class PDFNotReadyError(ApiError):
    error = "PDFNotReadyError"


class RateLimitError(ApiError):
    error = "RateLimitError"
    status_code = 429


class TooManyRequestsError(ApiError):
    error = "TooManyRequestsError"
    status_code = 429
