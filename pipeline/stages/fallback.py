"""The next step of a fallback chain (issue 44): when a message with alternatives left reaches a final
failure, its first alternative is sent as a notification of its own, under the same service and key
type and by the same rules as any send (pipeline.domain.send_rules, today's limits); the rest of the
alternatives go with it. A refusal is kept on the failed message (`fallback_refused`) and ends the chain.

Exactly once: the failed row is claimed by a compare-and-set of `fallback_sent_as` from NULL in the
transaction that records the new notification, so a redelivered message, or one whose worker was
killed half-way, finds the step taken (or rolled back whole) and sends nothing more.
"""
from __future__ import annotations

import datetime
import uuid
from collections.abc import Mapping
from typing import Any

from config import Settings
from models.db import database
from models.notification import Notification
from models.service import Service
from pipeline.domain import send_rules, statuses
from pipeline.domain.errors import ApiError, kept
from pipeline.domain.letters.content import filled_letter, postage_of
from pipeline.domain.new_notification import new_notification
from pipeline.infrastructure.daily_limits import DailyCount, daily_counts
from pipeline.infrastructure.throughput import Enqueue, WithRow, record
from pipeline.stages.documents import prepare_files

# The final failures a chain goes on from; delivered, sent (international) and received end it.
FALLS_BACK_ON = frozenset({statuses.PERMANENT_FAILURE, statuses.TEMPORARY_FAILURE, statuses.TECHNICAL_FAILURE})
SWEPT_AT_ONCE = 10_000


def _waiting() -> Any:
    """The condition of a row whose chain has its next step still to take."""
    return (Notification.fallback.is_null(False) & Notification.fallback_sent_as.is_null()
            & Notification.fallback_refused.is_null() & (Notification.key_type != "test"))


def has_next_step(notification_id: object) -> bool:
    """Whether a message that just failed has an alternative to send (one primary-key read)."""
    return Notification.select(Notification.id).where((Notification.id == notification_id) & _waiting()).exists()


def _daily(service: Service, channel: str) -> tuple[DailyCount, ...]:
    return daily_counts(service.id, {channel: service.daily_limit(channel)})


def _email(failed: Notification, alternative: dict, new_id: uuid.UUID) -> tuple[Notification, WithRow | None]:
    service = failed.service
    send_rules.check_permission(service, "email")
    version = send_rules.find_template(service, alternative["template_id"], "email")
    recipient = send_rules.recipient("email", alternative["email_address"])
    send_rules.check_recipient_allowed(service, failed.key_type, "email", recipient.normalised)
    files = prepare_files(service, "email", new_id, alternative.get("personalisation") or {})
    rendered = send_rules.checked_render("email", version, files.personalisation, [])
    row = new_notification(
        service, "email", recipient, body=rendered.body, subject=rendered.subject, version=version,
        reply_to_text=send_rules.default_reply_to(service), personalisation=files.personalisation,
        notification_id=new_id, **_chained(failed))
    return row, files.save if files.pending else None


def _letter(failed: Notification, alternative: dict, new_id: uuid.UUID) -> tuple[Notification, WithRow | None]:
    service = failed.service
    send_rules.check_permission(service, "letter")
    send_rules.check_letter_key_and_mode(service, failed.key_type)
    values = alternative.get("personalisation") or {}
    version, address, contact_block = send_rules.letter_content(service, alternative["template_id"], values)
    rendered, contact = filled_letter(version, contact_block, values)
    row = new_notification(
        service, "letter", address, body=rendered.body, subject=rendered.subject, version=version,
        reply_to_text=contact, personalisation=values, postage=postage_of(address, version),
        notification_id=new_id, **_chained(failed))
    return row, None


def _chained(failed: Notification) -> dict[str, Any]:
    """What a step takes over from the message it stands in for."""
    return {"key_type": failed.key_type, "api_key_id": failed.api_key_id,
            "created_by_user_id": failed.created_by_user_id, "reference": failed.reference,
            "fallback": failed.fallback[1:], "fallback_for": failed.id}


def _claim(failed_id: object, new_id: uuid.UUID) -> bool:
    return Notification.update(fallback_sent_as=new_id).where(
        (Notification.id == failed_id) & _waiting()).execute() == 1


def _refuse(failed_id: object, refused: ApiError) -> None:
    Notification.update(fallback_refused=[kept(message) for message in refused.messages]).where(
        (Notification.id == failed_id) & _waiting()).execute()


def send_next(notification_id: object, enqueue: Mapping[str, Enqueue]) -> Notification | None:
    """Send the failed message's next alternative, enqueued by enqueue[its channel] once committed;
    the new notification, or None when there is none to send (delivered, no alternatives left, the
    step taken already, or refused: the refusal is kept on the failed message)."""
    failed = Notification.get_or_none((Notification.id == notification_id) & _waiting())
    if failed is None or failed.status not in FALLS_BACK_ON:
        return None
    alternative = failed.fallback[0]
    make = _email if alternative["type"] == "email" else _letter
    try:
        row, with_row = make(failed, alternative, uuid.uuid4())
        with database.atomic():
            if not _claim(failed.id, row.id):
                return None  # another delivery of this message took the step
            record([row], enqueue[row.notification_type], _daily(failed.service, row.notification_type), with_row)
    except ApiError as refused:
        _refuse(failed.id, refused)
        return None
    return row


def steps_overdue(now: datetime.datetime, settings: Settings) -> list[str]:
    """Failed messages whose next step was due more than STUCK_AFTER_SECONDS ago and is neither taken
    nor refused: the message that was to start it was lost (Redis away at the commit, a process
    killed between the commit and the enqueue). Read along the partial index of such rows."""
    due_before = now - datetime.timedelta(seconds=settings.stuck_after_seconds)
    return [str(row.id) for row in Notification.select(Notification.id).where(
        Notification.status.in_(FALLS_BACK_ON) & _waiting() & (Notification.completed_at < due_before)
    ).limit(SWEPT_AT_ONCE)]
