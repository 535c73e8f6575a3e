"""The next step of a fallback chain (issue 44): when a message with alternatives left reaches a final
failure, its first alternative is sent as a notification of its own, under the same service and key
type and by the same rules as any send (pipeline.stages.send_checks, today's limits); the rest of the
alternatives go with it. A refusal is kept beside the failed message and ends the chain.

A chain's links live beside each message (models.notification_fallback). Exactly once: the failed
message's link is claimed by a compare-and-set of `sent_as` from NULL in the transaction that
records the new notification, so a redelivered message, or one whose worker was killed half-way,
finds the step taken (or rolled back whole) and sends nothing more.
"""
from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from config import Settings
from models.db import database, utcnow
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.service import Service
from pipeline.domain import statuses
from pipeline.domain.errors import ApiError, kept
from pipeline.domain.letters.content import filled_letter, postage_of
from pipeline.infrastructure import throughput
from pipeline.infrastructure.daily_limits import DailyCount, daily_counts
from pipeline.infrastructure.throughput import Enqueue, WithRow
from pipeline.stages import send_checks
from pipeline.stages.documents import prepare_files
from pipeline.stages.new_notification import new_chain, new_notification

# The final failures a chain goes on from; delivered, sent (international) and received end it.
FALLS_BACK_ON = frozenset({statuses.PERMANENT_FAILURE, statuses.TEMPORARY_FAILURE, statuses.TECHNICAL_FAILURE})
SWEPT_AT_ONCE = 10_000
# Called as listener(failed notification id, the refused step's channel, the refusals as kept) in the
# transaction that keeps a refusal: the chain ended at the failed message, and no status change will say
# so (a case event's klantcontact hangs off this). What a listener sends out must wait for the commit.
RefusalListener = Callable[[str, str, list[dict[str, Any]]], None]
_refusal_listeners: list[RefusalListener] = []


def on_refused(listener: RefusalListener) -> RefusalListener:
    """Register a listener for a chain ended by a refused step; the same function twice is called once."""
    if listener not in _refusal_listeners:
        _refusal_listeners.append(listener)
    return listener


def _open() -> Any:
    """A link whose next step is neither taken nor refused."""
    return NotificationFallback.sent_as.is_null() & NotificationFallback.refused.is_null()


def mark_failed(notification_id: object) -> bool:
    """A message failed for good: whether it has an alternative to send, its link then marked failed
    (what the sweep reads should the step's message be lost). One statement by the primary key."""
    return NotificationFallback.update(failed_at=utcnow()).where(
        (NotificationFallback.notification == notification_id) & NotificationFallback.alternatives.is_null(False)
        & NotificationFallback.failed_at.is_null() & _open()).execute() == 1


def links(notification_ids: Iterable[object]) -> dict[uuid.UUID, NotificationFallback]:
    """The chain links of these messages, by id (one query); a message without one is left out."""
    wanted = list(notification_ids)
    if not wanted:
        return {}
    return {link.notification_id: link for link in NotificationFallback.select().where(
        NotificationFallback.notification.in_(wanted))}


def link_of(notification_id: object) -> NotificationFallback | None:
    return NotificationFallback.get_or_none(NotificationFallback.notification == notification_id)


def saving_links(chains: Mapping[uuid.UUID, NotificationFallback], also: WithRow | None = None) -> WithRow | None:
    """What record() saves with each row (throughput.WithRow): its chain link, if it has one, and
    `also` (a send's files); None when there is nothing to save."""
    if not chains:
        return also

    def save(row: Notification) -> None:
        if also is not None:
            also(row)
        link = chains.get(row.id)
        if link is not None:
            link.save(force_insert=True)
    return save


def _daily(service: Service, channel: str) -> tuple[DailyCount, ...]:
    return daily_counts(service.id, {channel: service.daily_limit(channel)})


def _email(failed: Notification, alternative: dict, new_id: uuid.UUID) -> tuple[Notification, WithRow | None]:
    service = failed.service
    send_checks.check_permission(service, "email")
    version = send_checks.find_template(service, alternative["template_id"], "email")
    recipient = send_checks.recipient("email", alternative["email_address"])
    send_checks.check_recipient_allowed(service, failed.key_type, "email", recipient.normalised)
    files = prepare_files(service, "email", new_id, alternative.get("personalisation") or {})
    rendered = send_checks.checked_render("email", version, files.personalisation, [])
    row = new_notification(
        service, "email", recipient, body=rendered.body, subject=rendered.subject, version=version,
        reply_to_text=send_checks.default_reply_to(service), personalisation=files.personalisation,
        notification_id=new_id, **_chained(failed))
    return row, files.save if files.pending else None


def _letter(failed: Notification, alternative: dict, new_id: uuid.UUID) -> tuple[Notification, WithRow | None]:
    service = failed.service
    send_checks.check_permission(service, "letter")
    send_checks.check_letter_key_and_mode(service, failed.key_type)
    values = alternative.get("personalisation") or {}
    version, address, contact_block = send_checks.letter_content(service, alternative["template_id"], values)
    rendered, contact = filled_letter(version, contact_block, values)
    row = new_notification(
        service, "letter", address, body=rendered.body, subject=rendered.subject, version=version,
        reply_to_text=contact, personalisation=values, postage=postage_of(address, version),
        notification_id=new_id, **_chained(failed))
    return row, None


def _chained(failed: Notification) -> dict[str, Any]:
    """What a step takes over from the message it stands in for."""
    return {"key_type": failed.key_type, "api_key_id": failed.api_key_id,
            "created_by_user_id": failed.created_by_user_id, "reference": failed.reference}


def _claim(failed_id: object, new_id: uuid.UUID) -> bool:
    return NotificationFallback.update(sent_as=new_id).where(
        (NotificationFallback.notification == failed_id) & _open()).execute() == 1


def _refuse(failed_id: object, channel: str, refused: ApiError) -> None:
    refusals = [kept(message) for message in refused.messages]
    with database.atomic():
        if NotificationFallback.update(refused=refusals).where(
                (NotificationFallback.notification == failed_id) & _open()).execute():
            for listener in _refusal_listeners:
                listener(str(failed_id), channel, refusals)


def send_next(notification_id: object, enqueue: Mapping[str, Enqueue]) -> Notification | None:
    """Send the failed message's next alternative, enqueued by enqueue[its channel] once committed;
    the new notification, or None when there is none to send (delivered, no alternatives left, the
    step taken already, or refused: the refusal is kept beside the failed message)."""
    link = NotificationFallback.get_or_none((NotificationFallback.notification == notification_id) & _open()
                                            & NotificationFallback.alternatives.is_null(False))
    failed = Notification.get_or_none(Notification.id == notification_id) if link is not None else None
    if link is None or failed is None or failed.status not in FALLS_BACK_ON or failed.key_type == "test":
        return None
    alternative, rest = link.alternatives[0], link.alternatives[1:]
    make = _email if alternative["type"] == "email" else _letter
    try:
        row, with_row = make(failed, alternative, uuid.uuid4())
        chain = new_chain(row, rest, fallback_for=failed.id)
        with database.atomic():
            if not _claim(failed.id, row.id):
                return None  # another delivery of this message took the step
            throughput.seam().record([row], enqueue[row.notification_type],
                                     _daily(failed.service, row.notification_type),
                                     saving_links({row.id: chain} if chain is not None else {}, with_row))
    except ApiError as refused:
        _refuse(failed.id, alternative["type"], refused)
        return None
    return row


def steps_overdue(now: datetime.datetime, settings: Settings) -> list[str]:
    """Messages that failed more than STUCK_AFTER_SECONDS ago with their next step neither taken nor
    refused: the message that was to start it was lost (Redis away at the commit, a process killed
    between the commit and the enqueue). Read along the partial index of such links."""
    due_before = now - datetime.timedelta(seconds=settings.stuck_after_seconds)
    return [str(link.notification_id) for link in NotificationFallback.select(NotificationFallback.notification).where(
        NotificationFallback.failed_at.is_null(False) & _open() & (NotificationFallback.failed_at < due_before)
    ).limit(SWEPT_AT_ONCE)]
