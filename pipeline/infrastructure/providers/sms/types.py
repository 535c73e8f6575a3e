"""The kinds of SMS gateway a gateway row can be (its `type`), and what each needs to send.

    json     our own JSON gateway protocol (http_gateway.py): url, optional bearer token
    spryng   Spryng's REST API (spryng.py): its API key as token
    cm       CM.com Business Messaging (cm.py): its product token as token
    twilio   Twilio's Messages API (twilio.py): account_sid, its auth token as token, and an
             optional messaging_service_sid
A real provider's url defaults to its public API address; tests point it at a fake.
"""
from __future__ import annotations

from pipeline.infrastructure.providers.sms import cm, spryng, twilio

JSON, SPRYNG, CM, TWILIO = "json", "spryng", "cm", "twilio"
TYPES = (JSON, SPRYNG, CM, TWILIO)
DEFAULT_URLS = {SPRYNG: spryng.DEFAULT_URL, CM: cm.DEFAULT_URL, TWILIO: twilio.DEFAULT_URL}
_TOKEN_NAMES = {SPRYNG: "its API key", CM: "its product token", TWILIO: "its auth token"}


def settings_problem(kind: str, token: str | None, account_sid: str | None) -> str | None:
    """What a gateway of this type lacks to send, or None."""
    if kind not in TYPES:
        return f"type must be one of {', '.join(TYPES)}"
    if kind != JSON and not token:
        return f"a {kind} gateway needs a token ({_TOKEN_NAMES[kind]})"
    if kind == TWILIO and not account_sid:
        return "a twilio gateway needs an account_sid"
    return None
