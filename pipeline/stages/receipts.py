"""The delivery-receipt stage: providers' reports move notifications along the transition table.

A receipt is applied whatever the order in which it and the send's own answer arrive (architecture
docs/architecture.md#unknown-outcomes-wait-for-their-receipt). A gateway may report before its answer to our
send reaches us, or after a send whose
outcome we could not know: the notification is then still `created` with a claim. The receipt
shows the provider has the message, so it is first recorded as sent (`sending`, with the
provider's id) and then the receipt is applied. A receipt we cannot match yet (only the provider's
id, which we learn from its answer) is held and applied once that id is recorded, or dropped after
RECEIPT_HOLD_SECONDS.
"""
from __future__ import annotations

import datetime
import logging
import uuid
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from config import get_settings
from models.db import utcnow
from models.held_receipt import HeldReceipt
from models.notification import Notification, unindexed_status
from pipeline.domain import statuses
from pipeline.infrastructure import throughput
from pipeline.infrastructure.providers.sms.receipts import is_known_state, map_gateway_state
from pipeline.stages import status_changes

log = logging.getLogger(__name__)

Receipt = Mapping[str, Any]


def _our_reference(receipt: Receipt) -> str | None:
    try:
        return str(uuid.UUID(str(receipt["reference"]))) if receipt.get("reference") else None
    except ValueError:
        return None


def _notification_ids(receipts: Sequence[Receipt]) -> list[str | None]:
    """Our id for each receipt: its reference when that is one of ours, else by the provider's own id
    (one query for all of those)."""
    ours = [_our_reference(receipt) for receipt in receipts]
    unmatched = {str(r["id"]) for r, found in zip(receipts, ours, strict=True) if found is None and r.get("id")}
    by_provider_id = {
        row.provider_reference: str(row.id)
        for row in Notification.select(Notification.id, Notification.provider_reference)
        .where(Notification.provider_reference.in_(list(unmatched)))
    } if unmatched else {}
    return [found or by_provider_id.get(str(r.get("id"))) for r, found in zip(receipts, ours, strict=True)]


def apply_receipts(provider: str, receipts: Sequence[Receipt]) -> int:
    """Apply a provider's receipts in the order given; the number of status changes made.

    Consecutive receipts with the same outcome are applied in one statement, so a batch of
    "delivered" costs one UPDATE however long it is, while "pending" then "delivered" for one
    message still lands in that order. The transition table refuses what a status does not allow.
    Receipts for messages we do not know yet are held (see the module docstring).
    """
    known: list[tuple[Receipt, str]] = []
    unknown: list[Receipt] = []
    for receipt, notification_id in zip(receipts, _notification_ids(receipts), strict=True):
        if not is_known_state(str(receipt.get("status", ""))):
            log.warning("receipt from %s in a state we do not know: %s", provider, dict(receipt))
        elif notification_id is None:
            unknown.append(receipt)
        else:
            known.append((receipt, notification_id))
    if unknown:
        _hold(provider, unknown)
    return _apply(provider, known)


def _apply(provider: str, known: list[tuple[Receipt, str]]) -> int:
    if not known:
        return 0
    mapped = [(receipt, notification_id, map_gateway_state(str(receipt["status"])))
              for receipt, notification_id in known]
    # A receipt that moves nothing, or whose status a `created` notification may take directly (a
    # failure), records the send first, so the notification keeps the provider's id and its cost.
    _record_sent_from_receipts(provider, [(receipt, notification_id) for receipt, notification_id, new_status in mapped
                                          if new_status is None or statuses.CREATED in statuses.ALLOWED[new_status]])
    moved = 0
    for new_status, run in groupby([m for m in mapped if m[2] is not None], key=lambda m: m[2]):
        receipts = [(receipt, notification_id) for receipt, notification_id, _ in run]
        ids = {notification_id for _, notification_id in receipts}
        if statuses.CREATED in statuses.ALLOWED[new_status]:
            moved += len(status_changes.transition_many(ids, new_status))
            continue
        # Almost always the send's answer was recorded before its receipt came: move first, and look
        # for notifications still `created` only among those that did not move.
        done = status_changes.transition_many(ids, new_status, log_refused=False)
        rest = ids - set(done)
        if rest:
            _record_sent_from_receipts(provider, [(r, n) for r, n in receipts if n in rest])
            done += status_changes.transition_many(rest, new_status)
        moved += len(done)
    return moved


def _record_sent_from_receipts(provider: str, known: list[tuple[Receipt, str]]) -> None:
    """Move to `sending` the notifications still `created` that a provider reports on: it has them.
    The send's own answer, when it comes, fills in what is still missing (dispatch.record_sent)."""
    first_receipt: dict[str, Receipt] = {}
    for receipt, notification_id in known:
        first_receipt.setdefault(notification_id, receipt)
    if not first_receipt:
        return
    # Read to the end before the first write: under SQLite, writing on a connection whose SELECT is
    # still stepping fails at once ("database is locked") once another connection has committed, and
    # a batch of receipts gives other connections time to commit.
    created = list(Notification.select(Notification.id, Notification.fragment_count)
                   .where(Notification.id.in_(list(first_receipt)) & (unindexed_status() == statuses.CREATED)
                          & Notification.notification_type.in_(("sms", "email"))))
    now = utcnow()
    for row in created:  # refused where the send's answer moved it meanwhile (to `sent`, international)
        receipt = first_receipt[str(row.id)]
        status_changes.transition_if_allowed(row.id, statuses.SENDING, sent_at=now, sent_by=provider,
                                       provider_reference=str(receipt["id"]), billable_units=row.fragment_count,
                                       dispatch_started_at=now)


def _hold(provider: str, receipts: list[Receipt]) -> None:
    HeldReceipt.insert_many([{"provider": provider, "provider_id": str(r["id"]), "receipt": dict(r)}
                             for r in receipts]).execute()
    # The send's answer may have been recorded while these were being stored, and it looked for held
    # receipts before they were there: look once more, now that they are.
    apply_held(HeldReceipt.select().where(HeldReceipt.provider_id.in_([str(r["id"]) for r in receipts])
                                          & (HeldReceipt.provider == provider)))


def apply_held(held: Any) -> int:
    """Apply the held receipts (a HeldReceipt query) whose message is known now, and forget them;
    the number applied."""
    rows = list(held.order_by(HeldReceipt.id))
    if not rows:
        return 0
    ids = _notification_ids([row.receipt for row in rows])
    matched = [(row, notification_id) for row, notification_id in zip(rows, ids, strict=True) if notification_id]
    for provider, run in groupby(matched, key=lambda match: match[0].provider):
        _apply(provider, [(row.receipt, notification_id) for row, notification_id in run])
    if matched:
        HeldReceipt.delete().where(HeldReceipt.id.in_([row.id for row, _ in matched])).execute()
    return len(matched)


def apply_held_for(provider: str, provider_id: str) -> int:
    """Once a send's answer gave us the provider's id: the receipts that came before it. Asked on
    every send: a receipt held by another process a moment ago must not wait for the sweep.
    Almost always there is none, so first only a look."""
    if not throughput.seam().any_held_receipt(provider, provider_id):
        return 0
    return apply_held(HeldReceipt.select().where((HeldReceipt.provider == provider)
                                                 & (HeldReceipt.provider_id == provider_id)))


def sweep_held_receipts() -> tuple[int, int]:
    """Apply held receipts whose message is known now; drop those held longer than
    RECEIPT_HOLD_SECONDS. (applied, dropped)"""
    applied = apply_held(HeldReceipt.select().limit(10_000))
    cutoff = utcnow() - datetime.timedelta(seconds=get_settings().receipt_hold_seconds)
    dropped = HeldReceipt.delete().where(HeldReceipt.received_at < cutoff).execute()
    if dropped:
        log.warning("dropped %d delivery receipts whose message never became known", dropped)
    return applied, dropped
