"""The delivery-receipt stage: providers' reports move notifications along the transition table."""
from __future__ import annotations

import logging
import uuid
from itertools import groupby
from typing import Any, Mapping, Sequence

from models.notification import Notification
from pipeline import statuses
from pipeline.providers.sms.receipts import map_gateway_state

log = logging.getLogger(__name__)


def _our_reference(receipt: Mapping[str, Any]) -> str | None:
    try:
        return str(uuid.UUID(str(receipt["reference"]))) if receipt.get("reference") else None
    except ValueError:
        return None


def _notification_ids(receipts: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """Our id for each receipt: its reference when that is one of ours, else by the provider's own id
    (one query for all of those)."""
    ours = [_our_reference(receipt) for receipt in receipts]
    unmatched = {str(r["id"]) for r, found in zip(receipts, ours) if found is None and r.get("id")}
    by_provider_id = {
        row.provider_reference: str(row.id)
        for row in Notification.select(Notification.id, Notification.provider_reference)
        .where(Notification.provider_reference.in_(list(unmatched)))
    } if unmatched else {}
    return [found or by_provider_id.get(str(r.get("id"))) for r, found in zip(receipts, ours)]


def apply_receipts(provider: str, receipts: Sequence[Mapping[str, Any]]) -> int:
    """Apply a provider's receipts in the order given; the number of notifications that changed.

    Consecutive receipts with the same outcome are applied in one statement, so a batch of
    "delivered" costs one UPDATE however long it is, while "pending" then "delivered" for one
    message still lands in that order. The transition table refuses what a status does not allow.
    """
    changes: list[tuple[str, str]] = []
    for receipt, notification_id in zip(receipts, _notification_ids(receipts)):
        new_status = map_gateway_state(str(receipt.get("status", "")))
        if new_status is None:
            continue
        if notification_id is None:
            log.warning("receipt from %s for an unknown notification: %s", provider, dict(receipt))
            continue
        changes.append((new_status, notification_id))
    moved = 0
    for new_status, run in groupby(changes, key=lambda change: change[0]):
        moved += len(statuses.transition_many({notification_id for _, notification_id in run}, new_status))
    return moved
