"""Cancelling a service's message (the rules are core.cancel)."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from core.cancel import cancel_message
from models.notification import Notification
from pipeline.domain.formatting import iso


def cancelled_json(cancelled: Notification) -> dict[str, Any]:
    return {"id": str(cancelled.id), "type": cancelled.notification_type, "reference": cancelled.reference,
            "status": cancelled.status, "cancelled_at": iso(cancelled.completed_at)}


@admin_blueprint.post("/services/<service_id>/notifications/<notification_id>/cancel")
@documented("Cancel a letter not yet handed to the printer, or a scheduled text message or email not yet due. "
            "Answers 400 when it is too late.", {200: responses.cancelled_notification},
            path={**admin_schemas.service_path["properties"], **admin_schemas.notification_path["properties"]})
def post_cancel_notification(service_id: str, notification_id: str) -> Response:
    return jsonify(cancelled_json(cancel_message(service_id, notification_id)))
