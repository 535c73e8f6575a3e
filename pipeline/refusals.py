"""The words a send is refused in, for the rules the API's sends and a job's rows both apply: each
text is spelled here once, so a spreadsheet row is refused as the same message sent to the API is."""
from __future__ import annotations

CHANNEL_NAMES = {"sms": "text messages", "email": "emails", "letter": "letters"}
INTERNATIONAL_SMS_NOT_ALLOWED = "Cannot send to international mobile numbers"
EMAIL_MAX_BYTES = 2_000_000
MISSING_PERSONALISATION = "Missing personalisation: "  # then the placeholders' names, comma separated


def not_allowed_message(channel: str) -> str:
    return f"Service is not allowed to send {CHANNEL_NAMES[channel]}"


def missing_personalisation_message(names: list[str]) -> str:
    return MISSING_PERSONALISATION + ", ".join(names)


def email_too_long_message(body: str, subject: str | None) -> str | None:
    """The refusal of an email whose text and subject together are over the size taken, else None."""
    size = len(body.encode()) + len((subject or "").encode())
    if size > EMAIL_MAX_BYTES:
        return f"Emails cannot be longer than {EMAIL_MAX_BYTES} bytes. Your message is {size} bytes."
    return None
