"""A service's unsubscribe requests (hosted one-click unsubscribe): the CSV report the admin API hands out
in the spec's words, and the console's, written for its reader."""
from __future__ import annotations

import datetime

from core.services import find_service
from models.notification_event import UNSUBSCRIBE, NotificationEvent
from models.template import TemplateVersion
from pipeline.domain.csv_output import csv_text
from pipeline.domain.i18n import N_
from pipeline.domain.message_words import Written
from pipeline.stages.unsubscribe import report_csv

# The console's columns: the admin API's, named for a person, the template by its name.
COLUMNS = (N_("Email address"), N_("Message ID"), N_("Reference"), N_("Template"), N_("Sent at"),
           N_("Unsubscribed at"))


def _events(service_id: str) -> list[NotificationEvent]:
    service = find_service(service_id)
    return list(NotificationEvent.select()
                .where((NotificationEvent.service == service) & (NotificationEvent.kind == UNSUBSCRIBE))
                .order_by(NotificationEvent.occurred_at.desc(), NotificationEvent.id))


def unsubscribe_requests_csv(service_id: str) -> str:
    """The admin API's report: the spec's column names and wire values."""
    return report_csv(_events(service_id))


def _template_names(events: list[NotificationEvent]) -> dict[tuple[str, object], str]:
    ids = {(event.detail or {}).get("template_id") for event in events} - {None}
    versions = TemplateVersion.select(TemplateVersion.template, TemplateVersion.version, TemplateVersion.name).where(
        TemplateVersion.template.in_(list(ids))) if ids else []
    return {(str(v.template_id), v.version): v.name for v in versions}


def _moment(value: str | None) -> datetime.datetime | None:
    return datetime.datetime.fromisoformat(value) if value else None


def written_unsubscribe_requests(service_id: str, written: Written) -> str:
    """The console's report: for a person, in their language and on the service's clock."""
    events = _events(service_id)
    names = _template_names(events)
    rows: list[list[object]] = [[written.word(name) for name in COLUMNS]]
    for event in events:
        detail = event.detail or {}
        rows.append([detail.get("to"), event.notification_id, detail.get("reference"),
                     names.get((str(detail.get("template_id")), detail.get("template_version")), ""),
                     written.time(_moment(detail.get("sent_at"))), written.time(event.occurred_at)])
    return csv_text(rows)
