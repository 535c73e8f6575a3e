"""Schemas of the template endpoints: requests validated with them, responses checked in tests."""
from api.schema import INT_MAX, uuid_property

TEMPLATE_TYPES = ["sms", "email", "letter"]

get_templates_query = {
    "type": "object",
    "properties": {"type": {"enum": TEMPLATE_TYPES}},
}

template_path = {
    "type": "object",
    "properties": {"id": uuid_property(), "version": {"type": "integer", "minimum": 1, "maximum": INT_MAX}},
}

preview_request = {
    "type": "object",
    "properties": {"personalisation": {"type": ["object", "null"], "examples": [{"name": "Amala"}]}},
    "additionalProperties": False,
}

_datetime = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"}
_nullable_string = {"type": ["string", "null"]}

template_response = {
    "type": "object",
    "required": ["id", "name", "type", "created_at", "updated_at", "created_by", "version", "body",
                 "subject", "postage", "letter_contact_block", "personalisation"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "name": {"type": "string"},
        "type": {"enum": TEMPLATE_TYPES},
        "created_at": _datetime,
        "updated_at": {"anyOf": [_datetime, {"type": "null"}]},
        "created_by": {"type": "string"},
        "version": {"type": "integer"},
        "body": {"type": "string"},
        "subject": _nullable_string,
        "postage": _nullable_string,
        "letter_contact_block": _nullable_string,
        "personalisation": {
            "type": "object",
            "additionalProperties": {
                "type": "object", "required": ["required"], "properties": {"required": {"type": "boolean"}},
            },
        },
    },
    "additionalProperties": False,
}

templates_response = {
    "type": "object",
    "required": ["templates"],
    "properties": {"templates": {"type": "array", "items": template_response}},
}

preview_response = {
    "type": "object",
    "required": ["id", "type", "version", "body", "subject", "postage", "html"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "type": {"enum": TEMPLATE_TYPES},
        "version": {"type": "integer"},
        "body": {"type": "string"},
        "subject": _nullable_string,
        "postage": _nullable_string,
        "html": _nullable_string,
    },
    "additionalProperties": False,
}
