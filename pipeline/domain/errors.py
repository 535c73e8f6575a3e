"""The errors a request is refused with: each kind of refusal, and its refusals in the spec's words.

They live here, not in the API layer, because pipeline stages that run inside a request (files sent by
email, recipients) refuse with them too. They know no HTTP: each door answers a kind its own way
(api/errors.py: its status code and error name; the console: a sentence on the page).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Refusal(str):
    """A rule's refusal: the spec's English words (what the API answers and the CLI prints), carrying a
    stable code and the values in it, from which the console words it in its own language. No door
    reads another door's text (docs/architecture.md#refusals-carry-codes); a plain str refusal has no words
    but its own."""
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


def kept(message: str) -> dict[str, Any]:
    """A refusal as stored (JSON): its code (None for a plain str), words and values."""
    if isinstance(message, Refusal):
        return {"code": message.code, "text": str(message), "values": dict(message.values)}
    return {"code": None, "text": str(message), "values": {}}


def restored(stored: Mapping[str, Any]) -> str:
    """A refusal kept(): a Refusal again when it had a code, so each door words it from that."""
    if stored.get("code") is None:
        return str(stored["text"])
    return Refusal(stored["code"], stored["text"], stored.get("values") or {})


BLANK = Refusal("blank", "cannot be blank")  # "<field> cannot be blank": a text given with nothing but spaces


class ApiError(Exception):
    """A request refused by the rules, with every problem found (the base of the kinds below)."""

    def __init__(self, *messages: str) -> None:
        super().__init__(messages[0] if messages else "")
        self.messages = list(dict.fromkeys(messages))  # each problem once, in order


class BadRequestError(ApiError):
    pass


class ValidationError(ApiError):
    """A value of the request is not one the rules take."""


class NotPermitted(BadRequestError):
    """Refused for who asks (a member who is no admin, a team key sending a letter), not for what."""


class InProgress(BadRequestError):
    """The same request is still being handled: it is answered once that is done."""


class Unavailable(BadRequestError):
    """A service the request needs (the virus scanner) cannot be reached: the same request works later."""


class Misconfigured(ApiError, ValueError):
    """Settings that cannot work, a line each naming the setting and what is wrong with it
    (pipeline/infrastructure/provider_settings.py). A process that uses them refuses to start, /_status names them,
    and a request that needs them is refused rather than failing inside."""


class AuthError(ApiError):
    """The caller is not allowed in."""


NO_RESULT = Refusal("no_result", "No result found")


class NoResultFound(ApiError):
    def __init__(self, message: str = NO_RESULT) -> None:
        super().__init__(message)


class PDFNotReadyError(ApiError):
    pass


class RateLimitError(ApiError):
    """Too many requests in the rate limit's window."""


class TooManyRequestsError(ApiError):
    """Over one of today's send limits."""
