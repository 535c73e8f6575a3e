"""Sending an sms or email: check, record, enqueue after commit.

The body comes in already in shape (the API checks it against its JSON schema; the console's form
can only make bodies of that shape); the rules here are the send's own, the same for both doors.
"""
from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass
from typing import Any

from models.notification import Notification
from pipeline.domain.errors import BadRequestError
from pipeline.domain.recipients import Recipient
from pipeline.domain.refusals import INTERNATIONAL_SMS_NOT_ALLOWED
from pipeline.domain.rendering import Rendered, sanitise_values, sanitised_content
from pipeline.infrastructure import throughput
from pipeline.infrastructure.daily_limits import DailyCount, daily_counts
from pipeline.infrastructure.throughput import Enqueue
from pipeline.stages import send_checks
from pipeline.stages.documents import is_prepared_file, prepare_files
from pipeline.stages.fallback import saving_links
from pipeline.stages.new_notification import new_chain, new_notification
from pipeline.stages.sends import alternatives as fallback
from pipeline.stages.sends.sender import Sender


@dataclass
class Accepted:
    """A recorded send, with what its answer is made of."""
    notification: Notification
    body: dict
    rendered: Rendered
    sanitised_content: dict


def _sanitise_keys(body: dict) -> list[str]:
    raw_values = body.get("personalisation") or {}
    # A file's download link is ours, not the caller's text: it is never sanitised away.
    return [k for k in body.get("sanitise_content_for") or () if not is_prepared_file(raw_values.get(k))]


def checked_content(sender: Sender, channel: str, body: dict[str, Any]) -> Rendered:
    """What send_notification checks of the message itself (template, recipient, who may receive it
    and content), without recording or counting it: a console preview refuses what the send would,
    before the preview rather than after it."""
    service = sender.service
    version = send_checks.find_template(service, body["template_id"], channel)
    _allowed_recipient(sender, channel, body)
    return send_checks.checked_render(channel, version, body.get("personalisation") or {}, _sanitise_keys(body))


def _allowed_recipient(sender: Sender, channel: str, body: dict) -> Recipient:
    service = sender.service
    recipient = send_checks.recipient(channel, body["phone_number" if channel == "sms" else "email_address"])
    send_checks.check_recipient_allowed(service, sender.key_type, channel, recipient.normalised)
    if recipient.international and not service.has_permission("international_sms"):
        raise BadRequestError(INTERNATIONAL_SMS_NOT_ALLOWED)
    return recipient


def _daily_counts(sender: Sender, channel: str, recipient: Recipient) -> tuple[DailyCount, ...]:
    if sender.key_type == "test":
        return ()
    service = sender.service
    kinds = [channel] + (["international_sms"] if recipient.international else [])
    return daily_counts(service.id, {kind: service.daily_limit(kind) for kind in kinds})


def scheduled_for_utc(body: dict) -> datetime.datetime | None:
    """The body's scheduled_for (an ISO 8601 time, checked by the API's schema) as naive UTC."""
    value = body.get("scheduled_for")
    if not value:
        return None
    when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if when.tzinfo is not None:
        when = when.astimezone(datetime.UTC).replace(tzinfo=None)
    return when


def send_notification(sender: Sender, channel: str, body: dict[str, Any], enqueue: Enqueue) -> Accepted:
    """Check and record an sms or email, for an API key or a console user; raises pipeline.domain.errors'
    refusals. The body has the v2 API's shape. The caller's enqueue runs once the row has committed."""
    service = sender.service
    send_checks.check_permission(service, channel)
    throughput.seam().check_rate_limit(service.id, sender.key_type, service.rate_limit)
    version = send_checks.find_template(service, body["template_id"], channel)
    recipient = _allowed_recipient(sender, channel, body)
    reply_to_text: str | None
    if channel == "sms":
        reply_to_text = send_checks.sms_sender(service, body.get("sms_sender_id"))
    else:
        reply_to_text = send_checks.reply_to(service, body.get("email_reply_to_id"))
    notification_id = uuid.uuid4()
    files = prepare_files(service, channel, notification_id, body.get("personalisation") or {})
    rendered = send_checks.checked_render(channel, version, files.personalisation, _sanitise_keys(body))
    alternatives = fallback.checked_alternatives(sender, channel, body)
    daily = _daily_counts(sender, channel, recipient)
    row = new_notification(
        service, channel, recipient, body=rendered.body, subject=rendered.subject, version=version,
        key_type=sender.key_type, api_key_id=sender.api_key_id, created_by_user_id=sender.created_by_user_id,
        reference=body.get("reference"), reply_to_text=reply_to_text, scheduled_for=scheduled_for_utc(body),
        # Stored sanitised: the HTML email rendered at dispatch must honour sanitise_content_for too.
        personalisation=sanitise_values(files.personalisation, _sanitise_keys(body)),
        one_click_unsubscribe_url=body.get("one_click_unsubscribe_url"), notification_id=notification_id,
    )
    chain = new_chain(row, alternatives)
    # A send with files, or alternatives, commits them with its row, in one transaction.
    throughput.seam().record([row], enqueue, daily,
                             with_row=saving_links({row.id: chain} if chain is not None else {},
                                                   files.save if files.pending else None))
    sanitised = sanitised_content(files.personalisation, _sanitise_keys(body)) if channel == "email" else {}
    return Accepted(row, body, rendered, sanitised)
