"""JSON Schemas of the admin (provisioning) API, kept as data.

Every schema here is a module-level constant: api.schema caches compiled validators by id(), so a
schema built per call could collide with a freed one.
"""
from __future__ import annotations

import datetime

from api.schema import INT_MAX, FormatProblem, format_checker, uuid_property
from core import callbacks, keys, senders
from core.services import MAX_RETENTION_DAYS
from models.api_key import KEY_TYPES
from models.service import PERMISSIONS
from models.template import LETTER_LANGUAGES, TEMPLATE_TYPES
from pipeline.domain.errors import BLANK

POSTAGE = ["first", "second", "economy", "europe", "rest-of-world"]


@format_checker.checks("sms-sender", raises=FormatProblem)
def _is_sms_sender(value: object) -> bool:
    if isinstance(value, str) and not senders.is_sms_sender(value):
        raise FormatProblem(senders.SMS_SENDER_PROBLEM)
    return True


@format_checker.checks("inbound-number", raises=FormatProblem)
def _is_inbound_number(value: object) -> bool:
    if isinstance(value, str) and not senders.is_inbound_number(value):
        raise FormatProblem(senders.INBOUND_NUMBER_PROBLEM)
    return True


@format_checker.checks("non-blank", raises=FormatProblem)
def _is_non_blank(value: object) -> bool:
    # One readable message for "" and "   " alike, instead of jsonschema's "'' should be non-empty".
    if isinstance(value, str) and not value.strip():
        raise FormatProblem(BLANK)
    return True


@format_checker.checks("iso-datetime", raises=FormatProblem)
def _is_iso_datetime(value: object) -> bool:
    if isinstance(value, str) and parse_datetime(value) is None:
        raise FormatProblem(f"{value} is not a valid date-time")
    return True


def parse_datetime(value: str) -> datetime.datetime | None:
    """An ISO 8601 date-time as naive UTC (one without a zone is UTC); None when it is not one."""
    try:
        when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(datetime.UTC).replace(tzinfo=None)
    return when


_name = {"type": "string", "format": "non-blank", "maxLength": 255}
_limit = {"type": "integer", "minimum": 0, "maximum": INT_MAX}
_days = {"type": "integer", "minimum": 1, "maximum": MAX_RETENTION_DAYS}

_service_settings = {
    "name": _name,
    "trial_mode": {"type": "boolean"},
    "active": {"type": "boolean"},
    "rate_limit": {"type": "integer", "minimum": 1, "maximum": INT_MAX},
    "sms_daily_limit": _limit,
    "email_daily_limit": _limit,
    "letter_daily_limit": _limit,
    "international_sms_daily_limit": _limit,
    "permissions": {"type": "array", "items": {"enum": list(PERMISSIONS)}, "uniqueItems": True},
    "file_download_contact": {"type": ["string", "null"], "maxLength": 255},
    "hosted_unsubscribe": {"type": "boolean"},
    "time_zone": {"type": "string", "maxLength": 64, "description": "an IANA time zone, e.g. Europe/Amsterdam"},
    # A partial object on PATCH changes only the channels it names.
    "data_retention_days": {
        "type": "object",
        "properties": {"email": _days, "sms": _days, "letter": _days},
        "additionalProperties": False,
    },
}

create_service = {
    "type": "object",
    "required": ["name"],
    "properties": _service_settings,
    "additionalProperties": False,
}

update_service = {
    "type": "object",
    "properties": _service_settings,
    "additionalProperties": False,
}

_expires_at = {"type": ["string", "null"], "format": "iso-datetime",
               "description": "after this moment (ISO 8601, UTC when no zone is given) the key is refused; "
                              "null: never"}

create_api_key = {
    "type": "object",
    "required": ["name", "key_type"],
    "properties": {"name": _name, "key_type": {"enum": list(KEY_TYPES)}, "expires_at": _expires_at},
    "additionalProperties": False,
}

rotate_api_key = {
    "type": "object",
    "required": ["overlap_seconds"],
    "properties": {
        "overlap_seconds": {"type": "integer", "minimum": 0, "maximum": int(keys.MAX_OVERLAP.total_seconds()),
                            "description": "how long the old key keeps working"},
        "expires_at": _expires_at,
    },
    "additionalProperties": False,
}

_nullable_text = {"type": ["string", "null"], "maxLength": 255}

create_user = {
    "type": "object",
    "properties": {"email_address": _nullable_text, "mobile_number": _nullable_text},
    "additionalProperties": False,
}

create_guest_list_entry = {
    "type": "object",
    "required": ["recipient"],
    "properties": {"recipient": {"type": "string", "format": "non-blank", "maxLength": 255}},
    "additionalProperties": False,
}

_template_fields = {
    "name": _name,
    "body": {"type": "string", "format": "non-blank"},
    "subject": {"type": ["string", "null"], "format": "non-blank"},
    "postage": {"enum": POSTAGE},
    "letter_contact_id": {"type": ["string", "null"], "format": "uuid"},
    "created_by": _name,
    # Bilingual letters (Dutch then English): subject and body are the Dutch version.
    "letter_languages": {"enum": list(LETTER_LANGUAGES)},
    "letter_english_subject": {"type": ["string", "null"], "format": "non-blank"},
    "letter_english_body": {"type": ["string", "null"], "format": "non-blank"},
}

create_template = {
    "type": "object",
    "required": ["name", "type", "body"],
    "properties": {"type": {"enum": list(TEMPLATE_TYPES)}, **_template_fields},
    "additionalProperties": False,
    # Emails and letters need a subject (a letter's is its heading); type-specific bans are in code.
    "allOf": [{
        "if": {"required": ["type"], "properties": {"type": {"enum": ["email", "letter"]}}},
        "then": {"required": ["subject"]},
    }],
}

update_template = {
    "type": "object",
    "properties": _template_fields,
    "additionalProperties": False,
}

_is_default = {"type": "boolean"}

create_sms_sender = {
    "type": "object",
    "required": ["sms_sender"],
    "properties": {"sms_sender": {"type": "string", "format": "sms-sender"}, "is_default": _is_default},
    "additionalProperties": False,
}

create_reply_to_address = {
    "type": "object",
    "required": ["email_address"],
    "properties": {"email_address": {"type": "string", "maxLength": 255}, "is_default": _is_default},
    "additionalProperties": False,
}

create_letter_contact = {
    "type": "object",
    "required": ["contact_block"],
    "properties": {"contact_block": {"type": "string", "format": "non-blank", "maxLength": 1000},
                   "is_default": _is_default},
    "additionalProperties": False,
}

# Changing one: the same fields, none required.
update_sms_sender = {**create_sms_sender, "required": []}
update_reply_to_address = {**create_reply_to_address, "required": []}
update_letter_contact = {**create_letter_contact, "required": []}

assign_inbound_number = {
    "type": "object",
    "required": ["number"],
    "properties": {"number": {"type": "string", "format": "inbound-number"}},
    "additionalProperties": False,
}

# Path segments: a malformed id is a 400 "<name> is not a valid UUID", an unknown one a 404.
service_path = {"type": "object", "properties": {"service_id": uuid_property()}}
api_key_path = {"type": "object", "properties": {"key_id": uuid_property()}}
notification_path = {"type": "object", "properties": {"notification_id": uuid_property()}}
template_path = {"type": "object", "properties": {"template_id": uuid_property()}}
setting_path = {"type": "object", "properties": {"setting_id": uuid_property()}}


# Callbacks to services (api/admin/callbacks.py).
MAX_ATTEMPTS_LIMIT = 500


@format_checker.checks("callback-url", raises=FormatProblem)
def _is_callback_url(value: object) -> bool:
    problem = callbacks.callback_url_problem(value, look_up=False) if isinstance(value, str) else None
    if problem:
        raise FormatProblem(problem)
    return True


put_callback = {
    "type": "object",
    "required": ["url", "bearer_token"],
    "properties": {
        "url": {"type": "string", "format": "callback-url", "maxLength": callbacks.MAX_URL_LENGTH},
        "bearer_token": {"type": "string", "minLength": 10, "maxLength": 2000},
    },
    "additionalProperties": False,
}

callback_path = {
    "type": "object",
    "properties": {"service_id": uuid_property(), "kind": {"enum": callbacks.CALLBACK_KINDS}},
}

callback_attempts_query = {
    "type": "object",
    "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": MAX_ATTEMPTS_LIMIT}},
}

history_query = {
    "type": "object",
    "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 1000}},
}

reject_go_live = {
    "type": "object",
    "required": ["reason"],
    "properties": {"reason": {"type": "string", "format": "non-blank", "maxLength": 2000}},
    "additionalProperties": False,
}
