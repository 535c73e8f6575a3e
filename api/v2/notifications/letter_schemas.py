"""Schemas of POST /v2/notifications/letter, as data: a template letter or a precompiled PDF."""
from api.schema import FormatProblem, format_checker, uuid_property
from api.v2.notifications.post_schemas import template_ref, uri_string

PRECOMPILED_POSTAGE = ("first", "second", "economy")
LETTER_POSTAGE = (*PRECOMPILED_POSTAGE, "europe", "rest-of-world")


@format_checker.checks("precompiled-postage", raises=FormatProblem)
def _is_precompiled_postage(value: object) -> bool:
    # A format rather than an enum: the spec's message is not jsonschema's "is not one of [...]".
    if isinstance(value, str) and value not in PRECOMPILED_POSTAGE:
        raise FormatProblem("invalid. It must be either first, second or economy.")
    return True


_reference = {"type": "string", "maxLength": 1000}

post_letter_request = {
    "type": "object",
    "properties": {
        "template_id": uuid_property(),
        "personalisation": {"type": "object"},
        "reference": _reference,
        "letter_contact_id": uuid_property(),
        "scheduled_for": {"type": "string", "format": "datetime-within-24h"},
    },
    "required": ["template_id", "personalisation"],
    "additionalProperties": False,
}

post_precompiled_letter_request = {
    "type": "object",
    "properties": {
        "reference": _reference,
        "content": {"type": "string"},  # base64 of the PDF; decoded and checked by the endpoint
        "postage": {"type": "string", "format": "precompiled-postage"},
    },
    "required": ["reference", "content"],
    "additionalProperties": False,
}

_nullable_string = {"type": ["string", "null"]}

post_letter_response = {
    "type": "object",
    "required": ["id", "reference", "content", "uri", "template", "scheduled_for"],
    "properties": {
        "id": uuid_property(),
        "reference": _nullable_string,
        "content": {
            "type": "object",
            "required": ["subject", "body"],
            "properties": {"subject": {"type": "string"}, "body": {"type": "string"}},
            "additionalProperties": False,
        },
        "uri": uri_string,
        "template": template_ref,
        "scheduled_for": _nullable_string,
    },
}

post_precompiled_letter_response = {
    "type": "object",
    "required": ["id", "reference", "postage"],
    "properties": {
        "id": uuid_property(),
        "reference": {"type": "string"},
        "postage": {"enum": list(PRECOMPILED_POSTAGE)},
    },
    "additionalProperties": False,
}
