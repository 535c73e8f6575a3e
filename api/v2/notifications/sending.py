"""Accepting an sms or email at the API: the body checked against its schema, sent by pipeline.stages.sends.sending,
answered 201 with the send response; a retry with the same Idempotency-Key gets the first answer."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api.auth import Caller
from api.request_body import parse_body
from api.schema import validate
from api.v2.notifications.post_schemas import post_email_request, post_sms_request
from config import get_settings
from core.idempotency import answer_once
from models.notification import Notification
from pipeline.domain.formatting import iso
from pipeline.domain.rendering import Rendered
from pipeline.infrastructure.throughput import Enqueue
from pipeline.stages.sends.sender import Sender
from pipeline.stages.sends.sending import send_notification

OPTIONAL_NULLABLE = ("personalisation", "reference", "sms_sender_id", "email_reply_to_id",
                     "one_click_unsubscribe_url", "sanitise_content_for", "scheduled_for", "fallback")
SCHEMAS = {"sms": post_sms_request, "email": post_email_request}


def sender_of(caller: Caller) -> Sender:
    return Sender(caller.service, caller.key_type, api_key_id=caller.api_key.id)


def without_nulls(raw: Any, keys: tuple[str, ...]) -> Any:
    """Optional members sent as null mean "not given" (the Java client sends them so)."""
    if isinstance(raw, dict):
        return {k: v for k, v in raw.items() if not (k in keys and v is None)}
    return raw


def accept(caller: Caller, channel: str, raw_body: bytes, idempotency_key: str | None, enqueue: Enqueue,
           respond: Callable[[Notification, dict, Rendered], dict]) -> tuple[dict, int]:
    """The answer to a send of channel posted with raw_body: its body and status."""
    return answer_once(caller.service.id, idempotency_key,
                       lambda: _accept(caller, channel, raw_body, enqueue, respond))


def _accept(caller: Caller, channel: str, raw_body: bytes, enqueue: Enqueue,
            respond: Callable[[Notification, dict, Rendered], dict]) -> dict:
    body = validate(SCHEMAS[channel], without_nulls(parse_body(raw_body), OPTIONAL_NULLABLE))
    accepted = send_notification(sender_of(caller), channel, body, enqueue)
    response = respond(accepted.notification, accepted.body, accepted.rendered)
    if channel == "email":  # every email response carries it, {} when nothing was changed (wire contract)
        response["sanitised_content"] = accepted.sanitised_content
    return response


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
