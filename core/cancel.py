"""Cancelling a service's message: a letter until it is handed to the printer, a scheduled sms or email
until it is due (the stage logic is pipeline/stages/cancel.py); its daily counts are given back."""
from __future__ import annotations

from core.ids import checked_uuid
from core.services import find_service
from models import audit
from models.db import database
from models.notification import Notification
from models.queries import find_notification
from pipeline.domain.errors import NoResultFound
from pipeline.domain.statuses import public_status
from pipeline.infrastructure import daily_limits
from pipeline.stages import cancel


def cancel_message(service_id: str, notification_id: str) -> Notification:
    """Cancel the message and return it cancelled, or raise CancelRefused (400) saying why it is too
    late."""
    service = find_service(service_id)
    notification = find_notification(service, checked_uuid("notification_id", notification_id))
    if notification is None:
        raise NoResultFound()
    with database.atomic():
        done = cancel.cancel(notification)
        audit.record(service.id, "notification.cancel", subject_id=notification.id,
                     before={"status": public_status(notification.notification_type, notification.status)},
                     after={"status": done.notification.status})
    daily_limits.give_back_of(service.id, done.daily_limits, done.counted_on)
    return done.notification
