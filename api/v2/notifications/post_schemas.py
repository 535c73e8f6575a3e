"""Schemas of the send endpoints, as data: requests are validated with them, tests check responses."""
from api.schema import uuid_property

reference_string = {"type": "string", "maxLength": 1000}
send_request_properties = {
    "template_id": uuid_property(),
    # `examples` are annotations only: they show in /docs and seed the fuzz test's requests.
    "personalisation": {"type": "object", "examples": [{"name": "Amala"}]},
    "reference": reference_string,
    "scheduled_for": {"type": "string", "format": "datetime-within-24h"},
}



def fallback_property(types: list[str]) -> dict:
    """`fallback` (issue 44): at most two alternatives, each sent only if the message before it failed:
    an email needs its email_address, a letter the address lines in its personalisation, which is
    merged over the first message's. Never the channel of the message itself."""
    return {
        "type": "array", "maxItems": 2,
        "description": "Alternatives sent in turn when the message fails (permanent-, temporary- or "
                       "technical-failure): each a notification of its own, with fallback_for the failed one's id.",
        "items": {
            "type": "object",
            "properties": {
                "type": {"enum": types},
                "template_id": uuid_property(),
                "email_address": {"type": "string"},
                "personalisation": {"type": "object"},
            },
            "required": ["type", "template_id"],
            "additionalProperties": False,
            "if": {"properties": {"type": {"const": "email"}}},
            "then": {"required": ["email_address"]},
            "else": {"required": ["personalisation"]},
        },
        "examples": [[{"type": "email", "template_id": "f33517ff-2a88-4f6e-b855-c550268ce08a",
                       "email_address": "someone@example.nl"}]],
    }


post_sms_request = {
    "type": "object",
    "properties": {**send_request_properties, "phone_number": {"type": "string", "examples": ["+31612345678"]},
                   "sms_sender_id": uuid_property(), "fallback": fallback_property(["email", "letter"])},
    "required": ["phone_number", "template_id"],
    "additionalProperties": False,
}

post_email_request = {
    "type": "object",
    "properties": {
        **send_request_properties,
        "email_address": {"type": "string", "examples": ["someone@example.nl"]},
        "email_reply_to_id": uuid_property(),
        "one_click_unsubscribe_url": {"type": "string", "format": "https-url"},
        "sanitise_content_for": {"type": "array", "items": {"type": "string"}},
        "fallback": fallback_property(["letter"]),
    },
    "required": ["email_address", "template_id"],
    "additionalProperties": False,
}

uri_string = {"type": "string", "pattern": r"^https?://.+/v2/"}
template_ref = {
    "type": "object",
    "required": ["id", "version", "uri"],
    "properties": {"id": uuid_property(), "version": {"type": "integer"}, "uri": uri_string},
}
nullable_string = {"type": ["string", "null"]}


def post_notification_response(content: dict) -> dict:
    """The response of a send with a template (sms, email, letter): the same keys around each type's `content`."""
    return {
        "type": "object",
        "required": ["id", "reference", "content", "uri", "template", "scheduled_for"],
        "properties": {
            "id": uuid_property(),
            "reference": nullable_string,
            "content": content,
            "uri": uri_string,
            "template": template_ref,
            "scheduled_for": nullable_string,
        },
    }


post_sms_response = post_notification_response({
    "type": "object",
    "required": ["body", "from_number"],
    "properties": {"body": {"type": "string"}, "from_number": {"type": "string"}},
})

post_email_response = post_notification_response({
    "type": "object",
    "required": ["body", "subject", "from_email", "one_click_unsubscribe_url"],
    "properties": {
        "body": {"type": "string"},
        "subject": {"type": "string"},
        "from_email": {"type": "string"},
        "one_click_unsubscribe_url": nullable_string,
    },
})
# Every email response carries sanitised_content: {} or, per key the sanitising changed, both values.
post_email_response["required"].append("sanitised_content")
post_email_response["properties"]["sanitised_content"] = {
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "required": ["sanitised", "unsanitised"],
        "properties": {"sanitised": {}, "unsanitised": {}},
        "additionalProperties": False,
    },
}
