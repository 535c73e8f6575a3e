"""Where Open Notificaties posts a linked service's case messages (Notificaties API 1.0, issue 52):

    POST /case-events/<link id>
    Authorization: <the value the service gave Open Notificaties when it subscribed>
    {"kanaal", "hoofdObject", "resource", "resourceUrl", "actie", "aanmaakdatum", "kenmerken"}

A thin door: the Authorization value is checked (any other, or none, is 403: the answer Open
Notificaties expects when it posts without it), the body is bounded and checked against the
Notificaties API's Message, a status set on a case is recorded once (core/case_events.py) and handed
to the case-events stage after the commit, and the answer is 204 (the test message's too). It never
calls a ZGW API, so it answers within Open Notificaties' timeout whatever they do. Not in
/openapi.json: Open Notificaties, not a client, calls it; docs/zgw.md describes it.
"""
from __future__ import annotations

from flask import Blueprint, request

from api.request_body import json_body
from api.schema import validate
from core.case_events import authorised_link, receive

MAX_BODY_BYTES = 64 * 1024  # a message is a few hundred bytes of URLs and kenmerken
URL = {"type": "string", "minLength": 1, "maxLength": 1000}
# The Notificaties API's Message (notificaties-api 1.0.0.post1 src/openapi.yaml).
MESSAGE_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "kanaal": {"type": "string", "minLength": 1, "maxLength": 50},
        "hoofdObject": URL,
        "resource": {"type": "string", "minLength": 1, "maxLength": 100},
        "resourceUrl": URL,
        "actie": {"type": "string", "minLength": 1, "maxLength": 100},
        "aanmaakdatum": {"type": "string", "minLength": 1, "maxLength": 100},
        "kenmerken": {"type": "object", "maxProperties": 50,
                      "additionalProperties": {"type": "string", "maxLength": 1000}},
    },
    "required": ["kanaal", "hoofdObject", "resource", "resourceUrl", "actie", "aanmaakdatum"],
}

case_events_blueprint = Blueprint("case_events", __name__, url_prefix="/case-events")


@case_events_blueprint.post("/<link_id>")
def notification(link_id: str) -> tuple[str, int]:
    # The header first: a caller without it learns nothing of what the body should be.
    link = authorised_link(link_id, request.headers.get("Authorization"))
    receive(link, validate(MESSAGE_SCHEMA, json_body(max_bytes=MAX_BODY_BYTES)))
    return "", 204
