"""Schemas of the notification read endpoints: requests validated with them, responses checked in tests.

The send (POST) schemas live in post_schemas.py.
"""
from typing import Any

from api.schema import uuid_property

TEMPLATE_TYPES = ["sms", "email", "letter"]
# The spec's status filter values, in the order its error message lists them.
STATUS_FILTERS = [
    "cancelled", "created", "sending", "sent", "delivered", "pending", "failed", "technical-failure",
    "temporary-failure", "permanent-failure", "pending-virus-check", "validation-failed", "virus-scan-failed",
    "returned-letter", "accepted", "received",
]
POSTAGES = ["first", "second", "economy", "europe", "rest-of-world"]

notification_path = {
    "type": "object",
    "properties": {"id": uuid_property()},
}

# The query string as a dict: repeatable filters as lists, the others as single strings.
get_notifications_query = {
    "type": "object",
    "properties": {
        "template_type": {"type": "array", "items": {"enum": TEMPLATE_TYPES}},
        "status": {"type": "array", "items": {"enum": STATUS_FILTERS}},
        "reference": {"type": "string"},
        "older_than": uuid_property(),
        "other_than": uuid_property(),  # the cursor's name in the spec's page links
        "include_jobs": {"type": "string"},  # "true" (any case) or "1": the rows of bulk jobs too
    },
    "additionalProperties": False,
}

_datetime = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"}
_nullable_datetime = {"anyOf": [_datetime, {"type": "null"}]}
_nullable_string = {"type": ["string", "null"]}
page_links = {
    "type": "object",
    "required": ["current"],
    "properties": {"current": {"type": "string"}, "next": {"type": "string"}},
    "additionalProperties": False,
}


def page_response(items: str, item: dict[str, Any]) -> dict[str, Any]:
    """A page of a v2 list: up to 250 of `item` under `items`, and the links to this page and the next."""
    return {
        "type": "object",
        "required": [items, "links"],
        "properties": {items: {"type": "array", "maxItems": 250, "items": item}, "links": page_links},
        "additionalProperties": False,
    }

NOTIFICATION_KEYS = [
    "id", "reference", "email_address", "phone_number", "line_1", "line_2", "line_3", "line_4", "line_5",
    "line_6", "line_7", "postcode", "postage", "type", "status", "template", "body", "subject", "created_at",
    "created_by_name", "sent_at", "completed_at", "scheduled_for", "one_click_unsubscribe",
    "is_cost_data_ready", "cost_in_pounds", "cost_details", "fallback_for", "fallback_sent_as",
]

notification_response = {
    "type": "object",
    "required": NOTIFICATION_KEYS,
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "reference": _nullable_string,
        "email_address": _nullable_string,
        "phone_number": _nullable_string,
        **{f"line_{n}": _nullable_string for n in range(1, 8)},
        "postcode": _nullable_string,
        "postage": {"enum": [*POSTAGES, None]},
        "type": {"enum": TEMPLATE_TYPES},
        "status": {"type": "string"},
        "template": {
            "type": "object",
            "required": ["id", "version", "uri"],
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "version": {"type": "integer"},
                "uri": {"type": "string", "pattern": r"/v2/template/[0-9a-f-]{36}/\d+$"},
            },
            "additionalProperties": False,
        },
        "body": {"type": "string"},
        "subject": _nullable_string,
        "created_at": _datetime,
        "created_by_name": _nullable_string,
        "sent_at": _nullable_datetime,
        "completed_at": _nullable_datetime,
        "scheduled_for": _nullable_datetime,
        "one_click_unsubscribe": _nullable_string,
        "is_cost_data_ready": {"type": "boolean"},
        "cost_in_pounds": {"type": ["number", "null"]},
        "cost_details": {
            "type": "object",
            "properties": {
                "billable_sms_fragments": {"type": "integer"},
                "international_rate_multiplier": {"type": "integer"},
                "sms_rate": {"type": "number"},
                "billable_sheets_of_paper": {"type": "integer"},
                "postage": {"enum": POSTAGES},
            },
            "additionalProperties": False,
        },
        # Extensions of the spec (issue 44): a fallback chain's links, each a notification id or null.
        "fallback_for": {"anyOf": [uuid_property(), {"type": "null"}],
                         "description": "The id of the message this one was sent instead of (a fallback), or null."},
        "fallback_sent_as": {"anyOf": [uuid_property(), {"type": "null"}],
                             "description": "The id of the message sent instead of this one once it failed, or null."},
    },
    "additionalProperties": False,
}

notifications_page_response = page_response("notifications", notification_response)
