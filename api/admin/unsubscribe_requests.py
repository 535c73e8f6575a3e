"""A service's unsubscribe requests (hosted one-click unsubscribe), as a CSV report to download."""
from __future__ import annotations

from flask import Response

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.admin.services import find_service
from api.openapi import documented
from models.notification_event import UNSUBSCRIBE, NotificationEvent
from pipeline.unsubscribe import report_csv


def unsubscribe_requests_csv(service_id: str) -> str:
    service = find_service(service_id)
    events = (NotificationEvent.select()
              .where((NotificationEvent.service == service) & (NotificationEvent.kind == UNSUBSCRIBE))
              .order_by(NotificationEvent.occurred_at.desc(), NotificationEvent.id))
    return report_csv(events)


@admin_blueprint.get("/services/<service_id>/unsubscribe-requests.csv")
@documented("The service's unsubscribe requests as CSV.", {200: responses.CSV}, media_type="text/csv",
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_unsubscribe_requests(service_id: str) -> Response:
    return Response(unsubscribe_requests_csv(service_id), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="unsubscribe-requests-{service_id}.csv"'})
