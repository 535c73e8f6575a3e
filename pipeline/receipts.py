"""The delivery-receipt stage: a provider's report moves a notification along the transition table."""
from __future__ import annotations

import logging
import uuid
from typing import Any, Mapping

from models.notification import Notification
from pipeline import statuses
from pipeline.providers.sms.receipts import map_gateway_state

log = logging.getLogger(__name__)


def _notification_id(receipt: Mapping[str, Any]) -> uuid.UUID | None:
    """Our id from the receipt's reference, else by the provider's own id."""
    try:
        if receipt.get("reference"):
            return uuid.UUID(str(receipt["reference"]))
    except ValueError:
        pass
    if receipt.get("id"):
        row = Notification.select(Notification.id).where(
            Notification.provider_reference == str(receipt["id"])).first()
        return row.id if row else None
    return None


def apply_receipt(provider: str, receipt: Mapping[str, Any]) -> bool:
    """Apply one receipt; True when it changed the notification's status.

    The transition itself is the only query for a receipt that carries our reference: the
    transition table refuses what the current status does not allow.
    """
    new_status = map_gateway_state(str(receipt.get("status", "")))
    if new_status is None:
        return False
    notification_id = _notification_id(receipt)
    if notification_id is None:
        log.warning("receipt from %s for an unknown notification: %s", provider, dict(receipt))
        return False
    try:
        return statuses.transition(notification_id, new_status)
    except statuses.IllegalTransition:
        return False  # a late or duplicate receipt for a notification that has moved on; logged there
