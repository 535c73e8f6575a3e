"""A service's delivery events: complaints, returned letters and unsubscribe requests, as recorded
by the pipeline (pipeline/stages/notification_events.py), read-only."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, render_template, request
from flask_babel import gettext as _, lazy_gettext as _l

from console import downloads
from console.auth import current_service, service_permission_required
from core.unsubscribe_requests import written_unsubscribe_requests
from models.notification_event import COMPLAINT, RETURNED_LETTER, UNSUBSCRIBE, NotificationEvent
from models.queries import retention_cutoff

bp = Blueprint("delivery_events", __name__)

PAGE_SIZE = 200
KIND_NAMES = {COMPLAINT: _l("Complaints"), RETURNED_LETTER: _l("Returned letters"),
              UNSUBSCRIBE: _l("Unsubscribe requests")}
# Complaints and returned letters show what the notification held, so they follow the channel's
# retention; unsubscribe requests are the service's report, kept past it (models/notification_event.py).
RETAINED_CHANNEL = {COMPLAINT: "email", RETURNED_LETTER: "letter"}


def _events(service: Any, kind: str) -> list[NotificationEvent]:
    query = NotificationEvent.select().where((NotificationEvent.service == service) & (NotificationEvent.kind == kind))
    if kind in RETAINED_CHANNEL:
        query = query.where(NotificationEvent.occurred_at >= retention_cutoff(service, RETAINED_CHANNEL[kind]))
    return list(query.order_by(NotificationEvent.occurred_at.desc(), NotificationEvent.id).limit(PAGE_SIZE))


@bp.get("/services/<service_id>/delivery-events")
@service_permission_required("view_activity")
def index(service_id: str) -> Any:
    kind = request.args.get("kind", COMPLAINT)
    if kind not in KIND_NAMES:
        abort(404)
    service = current_service()
    return render_template("delivery_events/index.html", service=service, kind=kind, kinds=KIND_NAMES,
                           events=_events(service, kind))


@bp.get("/services/<service_id>/delivery-events/unsubscribe-requests.csv")
@service_permission_required("view_activity")
def unsubscribe_csv(service_id: str) -> Response:
    written = downloads.written()
    return downloads.csv_download(written_unsubscribe_requests(service_id, written),
                                  downloads.file_name(_("unsubscribe-requests"), service_id))
