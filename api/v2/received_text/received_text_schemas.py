"""Schemas of the received text messages endpoint: the query validated with them, responses checked in tests."""
from api.schema import uuid_property
from api.v2.notifications.notification_schemas import page_response

get_received_texts_query = {
    "type": "object",
    "properties": {"older_than": uuid_property(), "other_than": uuid_property()},
    "additionalProperties": False,
}

received_text_response = {
    "type": "object",
    "required": ["id", "user_number", "notify_number", "created_at", "service_id", "content"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "user_number": {"type": "string"},
        "notify_number": {"type": "string"},
        "created_at": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"},
        "service_id": {"type": "string", "format": "uuid"},
        "content": {"type": "string"},
    },
    "additionalProperties": False,
}

received_texts_page_response = page_response("received_text_messages", received_text_response)
