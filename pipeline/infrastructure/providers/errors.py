"""The vocabulary every provider client shares: the errors it may raise and the data it is given.

Rules 5 and 9 of the architecture: a provider client sorts every failure at the boundary by what
we know about the message afterwards (`certainly_not_delivered`), so the worker above it decides
between "retry later", "this notification is finished" and "wait for the receipt":

- RetryableProviderError: the message certainly did not reach the provider, and may get through if
  we try again (connection refused, 5xx, 429, an SMTP 4xx before the message was accepted). The
  worker retries with backoff; exhausted retries end in technical-failure. Another provider may be
  tried instead: this one does not have the message.
- FinalProviderError: the provider answered and will not take the message; retrying cannot help.
  `status` names the notification status to end in.
  RateLimited (a 429) and Paced (our own pace for the gateway left no room) are kinds of it that
  say when to try again and are no sign of a gateway in trouble.
- OutcomeUnknownError: the request went out whole and no answer came (a read timeout, the other end
  closing the connection without a word once it had our request). The provider may have the
  message: sending it again, here or elsewhere, risks a duplicate, so the notification waits for the
  provider's lookup (where it has one) or its receipt, unless the provider drops repeats of the same
  reference (`deduplicates` on the provider).

Anything else escaping a client is a bug and is left to surface, not folded into these classes.
The message and provider types live here too, so the client modules import one small module and
no module imports the package `__init__` (which imports them all).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

PERMANENT_FAILURE = "permanent-failure"  # the recipient cannot be reached this way
TECHNICAL_FAILURE = "technical-failure"  # our request was bad: credentials, configuration, payload


class ProviderError(Exception):
    """Base class: something went wrong talking to a provider."""

    # True when the provider certainly does not have the message: safe to send again or elsewhere.
    certainly_not_delivered: bool = True


class RetryableProviderError(ProviderError):
    """Try again later: the provider certainly did not take the message (unreachable, overloaded,
    or it said "not now")."""


class RateLimited(RetryableProviderError):
    """The provider said "too many requests" (429): it did not take the message; `retry_after`
    (seconds, or None when it did not say) is how long it asks every sender to hold off."""

    def __init__(self, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class Paced(RetryableProviderError):
    """Not sent: the gateway's own pace (messages per second, requests in flight) leaves no room
    now. Not a failure of the gateway; `retry_after` seconds is when room is expected."""

    def __init__(self, detail: str, retry_after: float) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class OutcomeUnknownError(ProviderError):
    """The request went out and we cannot know whether the provider took the message."""

    certainly_not_delivered = False


class FinalProviderError(ProviderError):
    """Do not try again. `status` is the notification status to record."""

    def __init__(self, status: str, detail: str = "") -> None:
        if status not in (PERMANENT_FAILURE, TECHNICAL_FAILURE):
            raise ValueError(f"FinalProviderError status must be permanent- or technical-failure, not {status!r}")
        super().__init__(f"{status}: {detail}" if detail else status)
        self.status = status
        self.detail = detail


@dataclass(frozen=True)
class EmailMessageData:
    notification_id: str
    to: str
    # "Name <local@domain>" or '"Name" <local@domain>'; the last "<" splits name from address, so
    # commas or quotes in a service name are safe here and get quoted properly in the header.
    from_address: str
    reply_to: str | None
    subject: str
    text_body: str
    html_body: str
    one_click_unsubscribe_url: str | None = None


@dataclass(frozen=True)
class SmsMessageData:
    notification_id: str
    to: str  # E.164, e.g. "+31612345678"
    sender: str  # alphanumeric sender id or a number
    body: str


@runtime_checkable
class EmailProvider(Protocol):
    name: str
    deduplicates: bool  # drops a repeat of a message with the same reference: unknown outcomes are retried

    def send_email(self, message: EmailMessageData) -> str:
        """Hand the message over; return the provider reference (the Message-ID)."""
        ...


@runtime_checkable
class SmsProvider(Protocol):
    name: str
    deduplicates: bool  # drops a repeat of a message with the same reference: unknown outcomes are retried

    def send_sms(self, message: SmsMessageData) -> str:
        """Hand the message over; return the gateway's message id."""
        ...
