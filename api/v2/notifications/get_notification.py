from __future__ import annotations

import uuid

from flask import Response, g, jsonify

from api.errors import NoResultFound
from api.openapi import documented
from api.schema import validate
from api.v2.blueprint import v2_blueprint
from api.v2.notifications.notification_schemas import notification_path, notification_response
from api.v2.notifications.serialise import notification_json
from models.notification import Notification
from models.queries import find_notification
from pipeline.stages.fallback import link_of


def callers_notification(notification_id: str) -> Notification:
    """The caller's service's notification by id, or the spec's 400/404 errors.

    Any key type of the service may read any of its notifications; retention still applies."""
    validate(notification_path, {"id": notification_id})
    notification = find_notification(g.caller.service, uuid.UUID(notification_id))
    if notification is None:
        raise NoResultFound("No result found")
    return notification


@v2_blueprint.get("/notifications/<notification_id>")
@documented("One notification of the caller's service, by id.", {200: notification_response},
            path={"notification_id": notification_path["properties"]["id"]})
def get_notification_by_id(notification_id: str) -> Response:
    notification = callers_notification(notification_id)
    return jsonify(notification_json(notification, link_of(notification.id)))
