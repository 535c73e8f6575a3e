"""The messages area's blueprint (views.py, listing.py, reports.py and cancelling.py add their routes
to it) and the lookup its pages share."""
from __future__ import annotations

from flask import Blueprint, abort

from console.auth import current_service
from models.db import is_uuid
from models.notification import Notification
from models.queries import find_notification

bp = Blueprint("messages", __name__)


def find_or_404(notification_id: str) -> Notification:
    """The service's notification, inside its retention period; 404 otherwise (as the API answers)."""
    found = find_notification(current_service(), notification_id) if is_uuid(notification_id) else None
    if found is None:
        abort(404)
    return found
