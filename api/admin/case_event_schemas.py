"""The admin API's case events (issue 52): the link's body, and what the link and its events answer."""
from __future__ import annotations

from typing import Any

from api.admin.response_schemas import DATETIME, NULLABLE_DATETIME
from api.schema import uuid_property
from core.case_events import MAX_CLIENT_ID, MAX_ROOT, MAX_SECRET
from pipeline.domain import case_events as domain

_nullable_string = {"type": ["string", "null"]}
_ROOT = {"type": "string", "minLength": 1, "maxLength": MAX_ROOT}
_SECRET = {"type": "string", "minLength": 1, "maxLength": MAX_SECRET}
_TEMPLATES = {
    "type": "object",
    "description": "The template of each scenario (received, updated, closed) per channel (email, sms, letter).",
    "properties": {scenario: {"type": "object", "properties": {
        channel: {"anyOf": [uuid_property(), {"type": "null"}]} for channel in domain.CHANNELS},
        "additionalProperties": False} for scenario in domain.SCENARIOS},
    "additionalProperties": False,
}

put_link = {
    "type": "object",
    "required": ["zaken_root", "catalogi_root", "klant_root", "client_id"],
    "properties": {
        "zaken_root": _ROOT, "catalogi_root": _ROOT, "klant_root": _ROOT,
        "client_id": {"type": "string", "minLength": 1, "maxLength": MAX_CLIENT_ID},
        "client_secret": {**_SECRET, "description": "Required the first time; left out, the one set is kept."},
        "klant_token": {**_SECRET, "description": "Open Klant's token; required the first time."},
        "nrc_root": {"anyOf": [_ROOT, {"type": "null"}]},
        "nrc_client_id": {"anyOf": [{"type": "string", "maxLength": MAX_CLIENT_ID}, {"type": "null"}]},
        "nrc_secret": _SECRET,
        "case_types": {"type": "array", "maxItems": domain.MAX_CASE_TYPES,
                       "items": {"type": "string", "minLength": 1, "maxLength": domain.MAX_IDENTIFICATIE}},
        "templates": _TEMPLATES,
    },
    "additionalProperties": False,
}

link_path = {"type": "object", "properties": {"service_id": uuid_property()}}
event_path = {"type": "object", "properties": {"service_id": uuid_property(), "event_id": uuid_property()}}
events_query = {
    "type": "object",
    "properties": {"zaak": {"type": "string", "minLength": 1, "maxLength": 40},
                   "limit": {"type": "integer", "minimum": 1, "maximum": 500}},
}


def _record(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": list(properties), "properties": properties, "additionalProperties": False}


link = _record({
    "id": uuid_property(),
    "callback_url": {"type": "string", "description": "Where Open Notificaties posts this service's messages."},
    "zaken_root": {"type": "string"}, "catalogi_root": {"type": "string"}, "klant_root": {"type": "string"},
    "client_id": {"type": "string"}, "nrc_root": _nullable_string, "nrc_client_id": _nullable_string,
    "credentials_set": _record({name: {"type": "boolean"} for name in ("client_secret", "klant_token", "nrc_secret")}),
    "case_types": {"type": "array", "items": {"type": "string"}},
    "templates": {"type": "object", "additionalProperties": {"type": "object",
                                                             "additionalProperties": uuid_property()}},
    "subscription": _record({"url": _nullable_string, "state": {"enum": [*domain.SUBSCRIPTION_STATES, None]},
                             "checked_at": NULLABLE_DATETIME,
                             "status": {"type": ["integer", "null"]}, "code": _nullable_string}),
    "updated_at": DATETIME,
})

event = _record({
    "id": uuid_property(),
    "received_at": DATETIME,
    "updated_at": DATETIME,
    "state": {"enum": list(domain.OUTCOMES)},
    "detail": {"type": ["object", "null"]},
    "attempts": {"type": "integer"},
    "zaak_identificatie": _nullable_string,
    "status_omschrijving": _nullable_string,
    "scenario": {"enum": [*domain.SCENARIOS, None]},
    "channel": {"enum": [*domain.CHANNELS, None]},
    "notification_id": {"anyOf": [uuid_property(), {"type": "null"}]},
    "klantcontact": {"enum": [*domain.CONTACT_STATES, None]},
})
events = _record({"events": {"type": "array", "items": event}})
