"""Cancelling a service's message: a letter until it is handed to the printer, a scheduled sms or email
until it is due (pipeline/cancel.py); its daily counts are given back."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.admin.services import find_service
from api.errors import NoResultFound
from api.openapi import documented
from api.schema import validate
from core.limits import release_daily_of
from models import audit
from models.db import database
from models.queries import find_notification
from pipeline import cancel
from pipeline.formatting import iso
from pipeline.statuses import public_status


def cancel_message(service_id: str, notification_id: str) -> dict[str, Any]:
    """Cancel the message, or raise CancelRefused (400) saying why it is too late."""
    service = find_service(service_id)
    validate(admin_schemas.notification_path, {"notification_id": notification_id})
    notification = find_notification(service, notification_id)
    if notification is None:
        raise NoResultFound()
    with database.atomic():
        done = cancel.cancel(notification)
        audit.record(service.id, "notification.cancel", subject_id=notification.id,
                     before={"status": public_status(notification.notification_type, notification.status)},
                     after={"status": done.notification.status})
    release_daily_of(service.id, done.daily_limits, done.counted_on)
    cancelled = done.notification
    return {"id": str(cancelled.id), "type": cancelled.notification_type, "reference": cancelled.reference,
            "status": cancelled.status, "cancelled_at": iso(cancelled.completed_at)}


@admin_blueprint.post("/services/<service_id>/notifications/<notification_id>/cancel")
@documented("Cancel a letter not yet handed to the printer, or a scheduled text message or email not yet due. "
            "Answers 400 when it is too late.", {200: responses.cancelled_notification},
            path={**admin_schemas.service_path["properties"], **admin_schemas.notification_path["properties"]})
def post_cancel_notification(service_id: str, notification_id: str) -> Response:
    return jsonify(cancel_message(service_id, notification_id))
