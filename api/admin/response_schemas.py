"""What the admin API answers, as JSON Schemas (data): the OpenAPI document and the fuzz test check
every response against them. Templates answer the v2 Template (api/v2/template/template_schemas.py)."""
from __future__ import annotations

from typing import Any

from api.schema import uuid_property
from api.v2.template.template_schemas import template_response
from core.callbacks import CALLBACK_KINDS
from models.api_key import KEY_TYPES
from models.job import JOB_STATUSES
from models.service import CHANNELS
from models.template import LETTER_LANGUAGES

DATETIME = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"}
NULLABLE_DATETIME = {"anyOf": [DATETIME, {"type": "null"}]}
_nullable_string = {"type": ["string", "null"]}


def _record(properties: dict[str, Any]) -> dict[str, Any]:
    """An object with exactly these members, all present."""
    return {"type": "object", "required": list(properties), "properties": properties, "additionalProperties": False}


def _list_of(member: str, item: dict[str, Any]) -> dict[str, Any]:
    return _record({member: {"type": "array", "items": item}})


service = _record({
    "id": uuid_property(),
    "name": {"type": "string"},
    "active": {"type": "boolean"},
    "trial_mode": {"type": "boolean"},
    "permissions": {"type": "array", "items": {"type": "string"}},
    "rate_limit": {"type": "integer"},
    "sms_daily_limit": {"type": "integer"},
    "email_daily_limit": {"type": "integer"},
    "letter_daily_limit": {"type": "integer"},
    "international_sms_daily_limit": {"type": "integer"},
    "data_retention_days": _record({channel: {"type": "integer"} for channel in CHANNELS}),
    "file_download_contact": _nullable_string,
    "hosted_unsubscribe": {"type": "boolean"},
    "time_zone": {"type": "string"},
    "created_at": DATETIME,
    "updated_at": NULLABLE_DATETIME,
})
services = _list_of("services", service)

# The v2 Template, and for letters what only the admin API shows: their languages and English version.
template = {**template_response, "properties": {
    **template_response["properties"], "letter_languages": {"enum": list(LETTER_LANGUAGES)},
    "letter_english_subject": _nullable_string, "letter_english_body": _nullable_string}}
templates = _list_of("templates", template)
template_versions = _list_of("versions", template)

_key_members = {"id": uuid_property(), "name": {"type": "string"}, "key_type": {"enum": list(KEY_TYPES)},
                "created_at": DATETIME}
api_key = _record({**_key_members, "created_by": _nullable_string, "last_used_at": NULLABLE_DATETIME,
                   "revoked_at": NULLABLE_DATETIME, "expires_at": NULLABLE_DATETIME})
created_api_key = _record({**_key_members, "created_by": _nullable_string, "expires_at": NULLABLE_DATETIME,
                           "key": {"type": "string", "description": "shown only once"}})
rotated_api_key = _record({"old_key": api_key, "new_key": created_api_key})
api_keys = _list_of("api_keys", api_key)


def _setting(field: str) -> dict[str, Any]:
    return _record({"id": uuid_property(), field: {"type": "string"}, "is_default": {"type": "boolean"},
                    "created_at": DATETIME})


# By the kinds of core/senders.py: (one, the list of them).
settings = {
    kind: (_setting(field), _list_of(kind.replace("-", "_"), _setting(field)))
    for kind, field in (("sms-senders", "sms_sender"), ("reply-to-addresses", "email_address"),
                        ("letter-contacts", "contact_block"))
}

inbound_number = _record({"id": uuid_property(), "number": {"type": "string"}, "service_id": {
    "anyOf": [uuid_property(), {"type": "null"}]}, "active": {"type": "boolean"}, "created_at": DATETIME})
inbound_numbers = _list_of("inbound_numbers", inbound_number)

team_member = _record({"id": {"type": "integer"}, "email_address": _nullable_string,
                       "mobile_number": _nullable_string, "created_at": DATETIME})
team_members = _list_of("users", team_member)
guest = _record({"id": {"type": "integer"}, "recipient": {"type": "string"},
                 "recipient_type": {"enum": ["email", "mobile"]}, "created_at": DATETIME})
guest_list = _list_of("guest_list", guest)

callback = _record({"id": uuid_property(), "kind": {"enum": CALLBACK_KINDS}, "url": {"type": "string"},
                    "updated_at": DATETIME})
_attempt_members = {
    "id": {"type": "integer"},
    "event": {"type": "string"},
    "url": {"type": "string"},
    "attempt": {"type": "integer"},
    "status_code": {"type": ["integer", "null"]},
    "error": _nullable_string,
    "duration_ms": {"type": ["integer", "null"]},
    "attempted_at": DATETIME,
}
# The subject is named by what it is: a notification's id or a received text's.
callback_attempt = {"type": "object", "required": list(_attempt_members), "properties": {
    **_attempt_members, "notification_id": uuid_property(), "received_text_id": uuid_property()},
    "additionalProperties": False, "minProperties": len(_attempt_members) + 1}
callback_attempts = _list_of("callback_attempts", callback_attempt)

go_live_request = _record({"id": uuid_property(), "status": {"enum": ["pending", "approved", "rejected"]},
                           "requested_by": {"type": "string"}, "requested_at": DATETIME,
                           "decided_by": _nullable_string, "decided_at": NULLABLE_DATETIME,
                           "reason": _nullable_string,
                           "expected_volumes": {"type": ["object", "null"],
                                                "additionalProperties": {"type": "integer"}},
                           "recipients": _nullable_string,
                           "awaits_organisation": {"type": "boolean"},
                           "organisation_approved_by": _nullable_string,
                           "organisation_approved_at": NULLABLE_DATETIME})
go_live_status = _record({
    "trial_mode": {"type": "boolean"},
    "checklist": {"type": "object", "additionalProperties": {"type": "boolean"}},
    "request": {"anyOf": [go_live_request, {"type": "null"}]},
})

history_event = _record({
    "id": uuid_property(),
    "action": {"type": "string"},
    "subject_id": _nullable_string,
    "actor": _record({"kind": {"type": "string"}, "id": {"type": "string"}, "name": {"type": "string"}}),
    "before": {"type": ["object", "null"]},
    "after": {"type": ["object", "null"]},
    "created_at": DATETIME,
})
history = _list_of("events", history_event)

_money = {"type": "number", "minimum": 0}
usage = _record({
    "service_id": uuid_property(),
    "month": {"type": "string", "pattern": r"^\d{4}-\d\d$"},
    "sms": _record({"notifications": {"type": "integer"}, "billable_units": {"type": "integer"},
                    "cost_in_pounds": _money}),
    "email": _record({"notifications": {"type": "integer"}, "cost_in_pounds": _money}),
    "letter": _record({"notifications": {"type": "integer"}, "billable_sheets": {"type": "integer"},
                       "cost_in_pounds": _money}),
    "total_cost_in_pounds": _money,
    "unpriced_notifications": {"type": "integer"},
})
CSV = {"type": "string", "contentMediaType": "text/csv"}


cancelled_notification = _record({
    "id": uuid_property(),
    "type": {"type": "string", "enum": list(CHANNELS)},
    "reference": _nullable_string,
    "status": {"const": "cancelled"},
    "cancelled_at": DATETIME,
})
template_folder = _record({"id": uuid_property(), "name": {"type": "string"},
                           "parent_id": {"anyOf": [uuid_property(), {"type": "null"}]}})
template_folders = _list_of("template_folders", template_folder)
templates_moved = _record({"moved": {"type": "integer", "minimum": 0}})
# Bulk jobs (api/admin/jobs.py).
_job_counts = {name: {"type": "integer", "minimum": 0}
               for name in ("rows", "processed", "sending", "delivered", "failed", "cancelled")}
job = _record({
    "id": uuid_property(), "service_id": uuid_property(), "template_id": uuid_property(),
    "template_version": {"type": "integer"}, "original_file_name": {"type": "string"},
    "status": {"enum": list(JOB_STATUSES)},
    "scheduled_for": NULLABLE_DATETIME, "created_at": DATETIME,
    "created_by_user_id": {"anyOf": [uuid_property(), {"type": "null"}]},
    "processing_started": NULLABLE_DATETIME, "processing_finished": NULLABLE_DATETIME,
    "counts": _record(_job_counts),
})
jobs = _list_of("jobs", job)
