from __future__ import annotations

from typing import Any

from flask import Response, g, jsonify

from api.openapi import documented
from api.schema import validate
from api.v2.blueprint import v2_blueprint
from api.v2.notifications.get_notifications import cursor, given_query, query_dict
from api.v2.notifications.serialise import page_links
from api.v2.received_text.received_text_schemas import get_received_texts_query, received_texts_page_response
from models.notification import ReceivedText
from models.queries import received_texts_page
from pipeline.domain.formatting import iso


def received_text_json(text: ReceivedText) -> dict[str, Any]:
    return {
        "id": str(text.id),
        "user_number": text.user_number,
        "notify_number": text.notify_number,
        "created_at": iso(text.created_at),
        "service_id": str(text.service_id),
        "content": text.content,
    }


@v2_blueprint.get("/received-text-messages")
@documented("A page of the texts the service received, newest first.", {200: received_texts_page_response},
            query=get_received_texts_query)
def get_received_texts() -> Response:
    pairs = given_query()
    data = validate(get_received_texts_query, query_dict(pairs))
    rows = received_texts_page(g.caller.service, cursor(data))
    return jsonify({
        "received_text_messages": [received_text_json(row) for row in rows],
        "links": page_links("/v2/received-text-messages", pairs, rows[-1].id if rows else None),
    })
