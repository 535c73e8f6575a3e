"""Accepting a letter at the API, from a template or as a precompiled PDF (`content` without
`template_id`): the body checked against its schema, sent by pipeline.stages.sends.letters, answered 201."""
from __future__ import annotations

from typing import Any

from flask import request

from api.auth import Caller
from api.request_body import json_body
from api.schema import validate
from api.v2.notifications.letter_schemas import post_letter_request, post_precompiled_letter_request
from api.v2.notifications.sending import response_base, sender_of, without_nulls
from core.idempotency import answer_once
from pipeline.infrastructure.throughput import Enqueue
from pipeline.stages.sends.letters import send_letter, send_precompiled_letter

OPTIONAL_NULLABLE = ("personalisation", "reference", "letter_contact_id", "scheduled_for", "postage")


def accept_letter(caller: Caller, enqueue_pdf: Enqueue, enqueue_scan: Enqueue) -> tuple[dict, int]:
    """201 and the send response; a retry with the same Idempotency-Key gets the first answer."""
    def make() -> dict[str, Any]:
        raw = without_nulls(json_body(), OPTIONAL_NULLABLE)
        if isinstance(raw, dict) and "content" in raw and "template_id" not in raw:
            body = validate(post_precompiled_letter_request, raw)
            notification = send_precompiled_letter(sender_of(caller), body["reference"], body["content"],
                                                   body.get("postage"), enqueue_scan)
            return {"id": str(notification.id), "reference": notification.reference,
                    "postage": notification.postage}
        notification = send_letter(sender_of(caller), validate(post_letter_request, raw), enqueue_pdf)
        return {**response_base(notification),
                "content": {"subject": notification.subject, "body": notification.body}}

    return answer_once(caller.service.id, request.headers.get("Idempotency-Key"), make)
