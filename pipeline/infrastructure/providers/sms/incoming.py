"""What a provider's webhooks tell us, once read from its own format: a delivery report in our
receipt vocabulary (pipeline/infrastructure/providers/sms/receipts.py), or a received text."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Report:
    provider_id: str  # what send_sms returned for the message
    reference: str | None  # our notification id, when the provider echoes it
    provider_status: str  # as the provider put it, for the logs
    state: str | None  # our receipt state; None: a status we do not know (logged and counted, nothing changed)

    def as_receipt(self) -> dict[str, Any]:
        return {"id": self.provider_id, "reference": self.reference, "status": self.state}


@dataclass(frozen=True)
class InboundText:
    to: str  # our inbound number, as the provider writes it
    sender: str  # the phone that sent it
    message: str
    provider_id: str | None  # kept to drop a redelivered text


class Unreadable(ValueError):
    """A webhook body without the fields the provider's format promises."""


def text(fields: Any, name: str) -> str:
    """A required, non-empty field of a webhook body as a string; Unreadable when it is missing."""
    value = fields.get(name) if hasattr(fields, "get") else None
    if value is None or isinstance(value, (dict, list)) or str(value) == "":
        raise Unreadable(f"{name} missing")
    return str(value)
