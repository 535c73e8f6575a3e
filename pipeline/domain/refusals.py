"""The words a send is refused in, for the rules the API's sends and a job's rows both apply: each
text is spelled here once, so a spreadsheet row is refused as the same message sent to the API is."""
from __future__ import annotations

from pipeline.domain.errors import Refusal

CHANNEL_NAMES = {"sms": "text messages", "email": "emails", "letter": "letters"}
INTERNATIONAL_SMS_NOT_ALLOWED = Refusal("international_sms_not_allowed", "Cannot send to international mobile numbers")
EMAIL_MAX_BYTES = 2_000_000


def not_allowed_message(channel: str) -> Refusal:
    return Refusal("channel_not_allowed", f"Service is not allowed to send {CHANNEL_NAMES[channel]}",
                   {"channel": channel})


def missing_personalisation_message(names: list[str]) -> Refusal:
    return Refusal("missing_personalisation", "Missing personalisation: " + ", ".join(names), {"names": names})


def email_too_long_message(body: str, subject: str | None) -> Refusal | None:
    """The refusal of an email whose text and subject together are over the size taken, else None."""
    size = len(body.encode()) + len((subject or "").encode())
    if size > EMAIL_MAX_BYTES:
        return Refusal("email_too_long", f"Emails cannot be longer than {EMAIL_MAX_BYTES} bytes. "
                       f"Your message is {size} bytes.", {"limit": EMAIL_MAX_BYTES, "size": size})
    return None
