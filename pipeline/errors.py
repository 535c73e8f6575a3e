"""The errors a request is refused with, in the spec's words and status codes.

They live here, not in the API layer, because pipeline stages that run inside a request (files sent by
email, recipients) refuse with them too; api.errors turns them into the JSON error shape.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Refusal(str):
    """A rule's refusal: the spec's English words (what the API answers and the CLI prints), carrying a
    stable code and the values in it, from which the console words it in its own language. No door
    reads another door's text (architecture rule 17); a plain str refusal has no words but its own."""
    code: str
    values: Mapping[str, Any]

    def __new__(cls, code: str, text: str, values: Mapping[str, Any] | None = None) -> Refusal:
        refusal = super().__new__(cls, text)
        refusal.code = code
        refusal.values = dict(values or {})
        return refusal

    def __getnewargs__(self) -> tuple[Any, ...]:  # pickled with its code and values
        return self.code, str(self), dict(self.values)

    @classmethod
    def filled(cls, code: str, template: str, **values: Any) -> Refusal:
        """The refusal whose words are its template ("... {domain} ...") filled with its values."""
        return cls(code, template.format(**values), values)

    def about(self, field: str) -> Refusal:
        """The problem as a field's: "<field> <problem>" in the spec's words, the field among its values."""
        return Refusal(self.code, f"{field} {self}", {**self.values, "field": field})


BLANK = Refusal("blank", "cannot be blank")  # "<field> cannot be blank": a text given with nothing but spaces


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


NO_RESULT = Refusal("no_result", "No result found")


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
