"""Events an email provider posts about messages it accepted: delivered, bounced, complained about.

    POST /providers/<provider>/email-events
    Authorization: Bearer <PROVIDER_WEBHOOK_TOKEN>
    {"type": "delivered" | "permanent-bounce" | "temporary-bounce" | "complaint",
     "message_id": "<the Message-ID header we sent>", "reference": "<our notification id>",
     "timestamp": "2026-11-23T10:15:00Z", "detail": "<bounce diagnostic or complaint type>"}
or a JSON array of up to 1,000 of them. Either message_id or reference identifies the email.
"""
from __future__ import annotations

from flask import Response, jsonify

from api.openapi import documented
from api.providers.blueprint import providers_blueprint
from api.providers.delivery_receipts import MAX_BODY_BYTES, success_response
from api.request_body import json_body
from api.schema import validate
from pipeline.infrastructure.providers.email.events import EVENT_TYPES
from workers.receipts import apply_posted_email_events

MAX_BATCH = 1000
EMAIL_EVENT_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "type": {"enum": list(EVENT_TYPES)},
        "message_id": {"type": "string", "minLength": 1, "maxLength": 1000},
        "reference": {"type": "string", "minLength": 1, "maxLength": 1000},
        "timestamp": {"type": "string", "maxLength": 100},
        "detail": {"type": ["string", "null"], "maxLength": 2000},
    },
    "required": ["type"],
    # One of the two names the email; without a reference, the message id is the one missing.
    "if": {"not": {"required": ["reference"]}},
    "then": {"required": ["message_id"]},
}
EMAIL_EVENTS_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "array",
    "items": EMAIL_EVENT_SCHEMA,
    "minItems": 1,
    "maxItems": MAX_BATCH,
}


@providers_blueprint.post("/<provider>/email-events")
@documented("An email provider's event about a message, or an array of them.", {200: success_response},
            body={"anyOf": [EMAIL_EVENT_SCHEMA, EMAIL_EVENTS_SCHEMA]})
def email_events(provider: str) -> tuple[Response, int]:
    body = json_body(max_bytes=MAX_BODY_BYTES, max_items=MAX_BATCH)
    events = validate(EMAIL_EVENTS_SCHEMA, body) if isinstance(body, list) else [validate(EMAIL_EVENT_SCHEMA, body)]
    # Answered once they are in the database, as delivery receipts are.
    apply_posted_email_events(provider, events)
    return jsonify({"result": "success"}), 200
