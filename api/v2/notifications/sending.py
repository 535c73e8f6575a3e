"""Accepting an sms or email: validate, check, record, enqueue after commit, answer 201."""
from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from flask import request

from api.auth import Caller
from pipeline.formatting import iso
from api.errors import BadRequestError, ValidationError
from api.request_body import json_body
from api.schema import validate
from api.v2.notifications import checks
from api.v2.notifications.post_schemas import post_email_request, post_sms_request
from api.v2.notifications.recording import Enqueue, record
from api.v2.notifications.sender import Sender
from config import get_settings
from core.idempotency import answer_once
from core.limits import CountedAhead, check_rate_limit, release_daily, reserve_daily
from models.db import database, insert_rows, utcnow
from models.notification import Notification
from models.service import Service
from models.template import TemplateVersion
from pipeline.documents import is_prepared_file, prepare_files
from pipeline.cost import sms_fragments, sms_too_long, sms_too_long_message
from pipeline.recipients import InvalidRecipient, Recipient, recipient_of
from pipeline.rendering import Rendered, missing_personalisation, render, sanitise_values, sanitised_content

EMAIL_MAX_BYTES = 2_000_000
OPTIONAL_NULLABLE = ("personalisation", "reference", "sms_sender_id", "email_reply_to_id",
                     "one_click_unsubscribe_url", "sanitise_content_for", "scheduled_for")
SCHEMAS = {"sms": post_sms_request, "email": post_email_request}


@dataclass
class Accepted:
    """A recorded send, with what its answer is made of."""
    notification: Notification
    body: dict
    rendered: Rendered
    sanitised_content: dict


def _recipient(channel: str, body: dict) -> Recipient:
    field = "phone_number" if channel == "sms" else "email_address"
    try:
        return recipient_of(channel, body[field])
    except InvalidRecipient as exc:
        raise ValidationError(f"{field} {exc.message}") from None


def _sanitise_keys(body: dict) -> list[str]:
    raw_values = body.get("personalisation") or {}
    # A file's download link is ours, not the caller's text: it is never sanitised away.
    return [k for k in body.get("sanitise_content_for") or () if not is_prepared_file(raw_values.get(k))]


def checked_content(service: Service, channel: str, raw: Any) -> Rendered:
    """What send_notification checks of the message itself (the body, template, recipient and
    content), without recording it: a console preview refuses what the send would."""
    body = validate(SCHEMAS[channel], without_nulls(raw, OPTIONAL_NULLABLE))
    version = checks.find_template(service, body["template_id"], channel)
    _recipient(channel, body)
    return _render(channel, version, body, body.get("personalisation") or {})


def _render(channel: str, version: TemplateVersion, body: dict, values: dict) -> Rendered:
    missing = missing_personalisation([version.subject or "", version.body], values)
    if missing:
        raise BadRequestError(f"Missing personalisation: {', '.join(missing)}")
    rendered = render(channel, version.body, version.subject, values, sanitise_keys=_sanitise_keys(body))
    if channel == "sms" and sms_too_long(rendered.body):
        raise BadRequestError(sms_too_long_message(len(rendered.body)))
    if channel == "email":
        size = len(rendered.body.encode()) + len((rendered.subject or "").encode())
        if size > EMAIL_MAX_BYTES:
            raise BadRequestError(f"Emails cannot be longer than {EMAIL_MAX_BYTES} bytes. Your message is {size} bytes.")
    return rendered


def _daily_limits(sender: Sender, channel: str, recipient: Recipient,
                  counted_ahead: CountedAhead | None) -> list[str]:
    if sender.key_type == "test":
        return []
    service = sender.service
    kinds = [channel] + (["international_sms"] if recipient.international else [])
    return reserve_daily(service.id, {kind: service.daily_limit(kind) for kind in kinds}, counted_ahead)


def scheduled_for_utc(body: dict) -> datetime.datetime | None:
    value = body.get("scheduled_for")
    if not value:
        return None
    when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if when.tzinfo is not None:
        when = when.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return when


def accept(caller: Caller, channel: str, enqueue: Enqueue,
           respond: Callable[[Notification, dict, Rendered], dict]) -> tuple[dict, int]:
    return answer_once(caller.service.id, request.headers.get("Idempotency-Key"),
                       lambda: _accept(caller, channel, enqueue, respond))


def without_nulls(raw: Any, keys: tuple[str, ...]) -> Any:
    """Optional members sent as null mean "not given" (the Java client sends them so)."""
    if isinstance(raw, dict):
        return {k: v for k, v in raw.items() if not (k in keys and v is None)}
    return raw


def _accept(caller: Caller, channel: str, enqueue: Enqueue,
            respond: Callable[[Notification, dict, Rendered], dict]) -> dict:
    accepted = send_notification(Sender.of_key(caller), channel, json_body(), enqueue,
                                 counted_ahead=caller.counted_ahead)
    response = respond(accepted.notification, accepted.body, accepted.rendered)
    if channel == "email":  # every email response carries it, {} when nothing was changed (wire contract)
        response["sanitised_content"] = accepted.sanitised_content
    return response


def send_notification(sender: Sender, channel: str, raw: Any, enqueue: Enqueue,
                      counted_ahead: CountedAhead | None = None) -> Accepted:
    """Validate, check and record an sms or email as the v2 API does, for an API key or a console
    user; raises the API's errors. The caller's enqueue runs once the row has committed.
    counted_ahead: this send's count against today's limit made by authentication (Caller), if any."""
    body = validate(SCHEMAS[channel], without_nulls(raw, OPTIONAL_NULLABLE))
    service = sender.service
    checks.check_permission(service, channel)
    check_rate_limit(service.id, sender.key_type, service.rate_limit)
    version = checks.find_template(service, body["template_id"], channel)
    recipient = _recipient(channel, body)
    checks.check_recipient_allowed(sender, channel, recipient.normalised)
    if recipient.international and not service.has_permission("international_sms"):
        raise BadRequestError("Cannot send to international mobile numbers")
    if channel == "sms":
        reply_to_text = checks.sms_sender(service, body.get("sms_sender_id"))
    else:
        reply_to_text = checks.reply_to(service, body.get("email_reply_to_id"))
    notification_id = uuid.uuid4()
    files = prepare_files(service, channel, notification_id, body.get("personalisation") or {})
    rendered = _render(channel, version, body, files.personalisation)
    counted = _daily_limits(sender, channel, recipient, counted_ahead)
    try:
        row = Notification(
            id=notification_id, service=service, api_key_id=sender.api_key_id, key_type=sender.key_type,
            created_by_user_id=sender.created_by_user_id,
            notification_type=channel, template_id=version.template.id, template_version=version.version,
            to=recipient.raw, normalised_to=recipient.normalised, reference=body.get("reference"),
            status="created", body=rendered.body, subject=rendered.subject, reply_to_text=reply_to_text,
            created_at=utcnow(), scheduled_for=scheduled_for_utc(body), international=recipient.international,
            phone_prefix=recipient.prefix, rate_multiplier=recipient.rate_multiplier,
            # Stored sanitised: the HTML email rendered at dispatch must honour sanitise_content_for too.
            personalisation=sanitise_values(files.personalisation, _sanitise_keys(body)),
            one_click_unsubscribe_url=body.get("one_click_unsubscribe_url"),
            fragment_count=sms_fragments(rendered.body).fragments if channel == "sms" else 0,
        )
        if files.pending:
            # The files' rows commit with the notification's, in one transaction of this thread.
            with database.atomic():
                insert_rows(Notification, [row])
                files.save(row)
                enqueue([row])
            notification = row
        else:
            notification = record(row, enqueue)
    except BaseException:
        release_daily(counted)
        raise
    sanitised = sanitised_content(files.personalisation, _sanitise_keys(body)) if channel == "email" else {}
    return Accepted(notification, body, rendered, sanitised)


def response_base(notification: Notification) -> dict[str, Any]:
    """The members every send response shares."""
    base = get_settings().base_url
    return {
        "id": str(notification.id),
        "reference": notification.reference,
        "uri": f"{base}/v2/notifications/{notification.id}",
        "template": {"id": str(notification.template_id), "version": notification.template_version,
                     "uri": f"{base}/v2/template/{notification.template_id}"},
        "scheduled_for": iso(notification.scheduled_for),
    }
