"""The delivery-receipt stage: a provider's report moves a notification along the transition table."""
from __future__ import annotations

import logging
import uuid
from typing import Any, Mapping

from models.notification import Notification
from pipeline import statuses
from pipeline.providers.sms.receipts import map_gateway_state

log = logging.getLogger(__name__)


def _find(receipt: Mapping[str, Any]) -> Notification | None:
    reference = receipt.get("reference")
    try:
        if reference:
            return Notification.get_or_none(Notification.id == uuid.UUID(str(reference)))
    except ValueError:
        pass
    if receipt.get("id"):
        return Notification.get_or_none(Notification.provider_reference == str(receipt["id"]))
    return None


def apply_receipt(provider: str, receipt: Mapping[str, Any]) -> Notification | None:
    """Apply one receipt; returns the notification when its status changed, else None."""
    notification = _find(receipt)
    if notification is None:
        log.warning("receipt from %s for an unknown notification: %s", provider, dict(receipt))
        return None
    new_status = map_gateway_state(str(receipt.get("status", "")))
    if new_status is None or new_status == notification.status:
        return None
    try:
        changed = statuses.transition(notification.id, new_status)
    except statuses.IllegalTransition:
        return None  # a late or duplicate receipt for a notification that has moved on; logged there
    return Notification.get_by_id(notification.id) if changed else None
