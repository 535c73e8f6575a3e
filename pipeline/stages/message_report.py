"""The messages report: a CSV of the console list's matches, like Notify's report. Small lists are
streamed straight to the browser; long ones are built here by a worker (build_report, idempotent) into
storage, chunk by chunk, with the progress recorded for the console's progress page.

Values are the v2 API's (public status names, wire date-times, the id), so a report can be checked
against what the API returns for the same notifications.
"""
from __future__ import annotations

import datetime
import io
import logging
import uuid
from collections.abc import Iterator

from models.db import utcnow
from models.message_report import FAILED, PENDING, READY, MessageReport
from models.notification import Notification
from models.service import Service
from pipeline.domain.csv_output import csv_text
from pipeline.domain.formatting import iso
from pipeline.domain.statuses import public_status
from pipeline.infrastructure.message_details import API_KEY, JOB, USER, senders, template_names
from pipeline.infrastructure.message_search import MessageSearch, all_matches, count_matches
from pipeline.infrastructure.storage import Storage

log = logging.getLogger(__name__)

HEADER = ["Recipient", "Reference", "Template", "Type", "Sent by", "Job", "Status", "Time", "API key name", "ID"]
CHUNK = 1000  # rows read, looked up and written at a time
# How long a background report stays downloadable: it holds recipients, and is made to be fetched at once.
KEPT_FOR = datetime.timedelta(days=1)


def recipient(notification: Notification) -> str:
    """One line: a letter's address lines joined by commas."""
    return ", ".join((notification.to or "").splitlines())


def csv_rows(chunk: list[Notification]) -> list[list[str]]:
    who = senders(chunk)
    names = template_names(chunk)
    rows = []
    for n in chunk:
        sender = who.get(str(n.id))
        kind, name = (sender.kind, sender.name) if sender else (None, "")
        rows.append([
            recipient(n), n.reference or "", names.get((str(n.template_id), n.template_version), ""),
            n.notification_type, name if kind == USER else "", name if kind == JOB else "",
            public_status(n.notification_type, n.status), iso(n.created_at) or "",
            name if kind == API_KEY else "", str(n.id),
        ])
    return rows


def stream_csv(service: Service, search: MessageSearch) -> Iterator[str]:
    """The report as text pieces, a chunk of rows at a time."""
    yield csv_text([HEADER])
    for chunk in all_matches(service, search, chunk=CHUNK):
        yield csv_text(csv_rows(chunk))


def report_key(report: MessageReport) -> str:
    return f"message-reports/{report.service_id}/{report.id}.csv"


def build_report(report_id: uuid.UUID | str, storage: Storage) -> str | None:
    """Build the report's file; None when there is nothing to do (done, failed, gone). A redelivered
    message after a worker died part-way builds it again from the start: the file is stored whole, at
    the end, and the report holds only the messages accepted before it was asked for."""
    report = MessageReport.get_or_none(MessageReport.id == report_id)
    if report is None or report.status != PENDING:
        return None
    service = Service.get_by_id(report.service_id)
    search = MessageSearch.from_dict(report.filters)
    total = count_matches(service, search)
    MessageReport.update(rows_total=total, rows_written=0).where(MessageReport.id == report.id).execute()
    out = io.StringIO()
    out.write(csv_text([HEADER]))
    written = 0
    for chunk in all_matches(service, search, chunk=CHUNK):
        out.write(csv_text(csv_rows(chunk)))
        written += len(chunk)
        # Progress for the page; the total is a bound, as messages past retention drop out meanwhile.
        MessageReport.update(rows_written=written, rows_total=max(total, written)).where(
            MessageReport.id == report.id).execute()
    storage.put(report_key(report), out.getvalue().encode("utf-8"))
    MessageReport.update(status=READY, finished_at=utcnow(), rows_total=written).where(
        (MessageReport.id == report.id) & (MessageReport.status == PENDING)).execute()
    log.info("messages report %s of service %s: %d rows", report.id, service.id, written)
    return READY


def fail_report(report_id: uuid.UUID | str) -> None:
    MessageReport.update(status=FAILED, finished_at=utcnow()).where(
        (MessageReport.id == report_id) & (MessageReport.status == PENDING)).execute()


def purge_reports(storage: Storage, now: datetime.datetime | None = None) -> int:
    """Delete reports asked for longer than KEPT_FOR ago, file first; returns how many. A purge cut off
    between the two finds the row again next time (deleting a missing file is no error)."""
    cutoff = (now or utcnow()) - KEPT_FOR
    old = list(MessageReport.select(MessageReport.id, MessageReport.service).where(MessageReport.created_at < cutoff))
    for report in old:
        storage.delete(report_key(report))
        MessageReport.delete().where(MessageReport.id == report.id).execute()
    return len(old)
