"""The vocabulary every provider client shares: the errors it may raise and the data it is given.

Rule 5 of the architecture: a provider client sorts every failure at the boundary, so the worker
above it only has to decide between "retry later" and "this notification is finished":

- RetryableProviderError: the message may get through if we try again (timeouts, connection
  errors, 5xx, 429, SMTP 4xx). The worker retries with backoff; exhausted retries end in
  technical-failure.
- FinalProviderError: retrying cannot help. `status` names the notification status to end in.

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


class RetryableProviderError(ProviderError):
    """Try again later: the provider was unreachable, slow, overloaded or said "not now"."""


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

    def send_email(self, message: EmailMessageData) -> str:
        """Hand the message over; return the provider reference (the Message-ID)."""
        ...


@runtime_checkable
class SmsProvider(Protocol):
    name: str

    def send_sms(self, message: SmsMessageData) -> str:
        """Hand the message over; return the gateway's message id."""
        ...
