"""Delivery receipts: what a gateway posts back to us, and what its states mean in our statuses.

A gateway (and our own simulated providers) reports progress by posting to
    POST {base_url}/providers/<provider name>/delivery-receipts
    Authorization: Bearer <provider webhook token>
    Content-Type: application/json
    {"id": "<gateway message id>", "reference": "<our notification id>",
     "status": "<gateway state>", "timestamp": "2026-11-03T10:15:00Z"}
`id` is what send_sms returned; `reference` is the notification id we sent with the message, so a
receipt can be matched even by a gateway that lost its own id. `timestamp` is ISO 8601, when the
gateway saw the state change.
"""
from __future__ import annotations

from typing import Any

# Gateway states (lower case) -> our notification statuses. None: no change worth recording.
_STATES: dict[str, str | None] = {
    "delivered": "delivered",
    "pending": "pending",
    "buffered": "pending",
    "enroute": "pending",
    "undeliverable": "permanent-failure",
    "rejected": "permanent-failure",
    "invalid": "permanent-failure",
    "expired": "temporary-failure",
    "failed": "temporary-failure",
    "unreachable": "temporary-failure",
    "absent": "temporary-failure",
    # The provider could not pass it on, by its own trouble or our account's, not the recipient's
    # (Twilio's `failed`: a queue overflow, a suspended account; Spryng's originator not registered).
    "provider-failure": "technical-failure",
    "accepted": None,  # the gateway has it; we already said "sending"
    "sent": None,
}

# The receipt body as data (docs/architecture.md#schemas-are-data), for the inbound route to validate against.
RECEIPT_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "id": {"type": ["string", "integer"]},
        "reference": {"type": ["string", "null"]},
        "status": {"type": "string", "minLength": 1},
        "timestamp": {"type": "string"},
    },
    "required": ["id", "status"],
}


def map_gateway_state(state: str) -> str | None:
    """Our status for a gateway state; None for "no change" and for states we do not know.

    Unknown states are not errors here: the caller logs them and leaves the notification alone, so
    a gateway adding a state never fails a receipt.
    """
    return _STATES.get(state.strip().lower())


def is_known_state(state: str) -> bool:
    """Whether the gateway state is one we know: every one of them, "accepted" too, shows that the
    gateway has the message."""
    return state.strip().lower() in _STATES
