"""A service's unsubscribe requests (hosted one-click unsubscribe), as the CSV report both the admin
API and the console hand out."""
from __future__ import annotations

from core.services import find_service
from models.notification_event import UNSUBSCRIBE, NotificationEvent
from pipeline.stages.unsubscribe import report_csv


def unsubscribe_requests_csv(service_id: str) -> str:
    service = find_service(service_id)
    events = (NotificationEvent.select()
              .where((NotificationEvent.service == service) & (NotificationEvent.kind == UNSUBSCRIBE))
              .order_by(NotificationEvent.occurred_at.desc(), NotificationEvent.id))
    return report_csv(events)
