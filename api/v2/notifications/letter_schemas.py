"""Schemas of POST /v2/notifications/letter, as data: a template letter or a precompiled PDF."""
from api.schema import FormatProblem, format_checker, uuid_property
from api.v2.notifications.post_schemas import post_notification_response, reference_string, send_request_properties

PRECOMPILED_POSTAGE = ("first", "second", "economy")
LETTER_POSTAGE = (*PRECOMPILED_POSTAGE, "europe", "rest-of-world")


@format_checker.checks("precompiled-postage", raises=FormatProblem)
def _is_precompiled_postage(value: object) -> bool:
    # A format rather than an enum: the spec's message is not jsonschema's "is not one of [...]".
    if isinstance(value, str) and value not in PRECOMPILED_POSTAGE:
        raise FormatProblem("invalid. It must be either first, second or economy.")
    return True


post_letter_request = {
    "type": "object",
    "properties": {**send_request_properties, "letter_contact_id": uuid_property(), "personalisation": {
        "type": "object", "examples": [{"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1",
                                        "address_line_3": "1234 AB Amsterdam", "name": "Amala"}]}},
    "required": ["template_id", "personalisation"],
    "additionalProperties": False,
}

post_precompiled_letter_request = {
    "type": "object",
    "properties": {
        "reference": reference_string,
        "content": {"type": "string"},  # base64 of the PDF; decoded and checked by the endpoint
        "postage": {"type": "string", "format": "precompiled-postage"},
    },
    "required": ["reference", "content"],
    "additionalProperties": False,
}

post_letter_response = post_notification_response({
    "type": "object",
    "required": ["subject", "body"],
    "properties": {"subject": {"type": "string"}, "body": {"type": "string"}},
    "additionalProperties": False,
})

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
