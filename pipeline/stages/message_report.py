"""The messages report: a CSV of the console list's matches, like Notify's report. Small lists are
streamed straight to the browser; long ones are built here by a worker (build_report, idempotent) into
storage, chunk by chunk, with the progress recorded for the console's progress page.

It is written for the person who asked for it (pipeline.domain.message_words.Written), as the console's
list shows the same messages: column names, channels and statuses in the language of the page that asked
(kept with a background report), times on the service's clock, recipients as the console shows them.
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
from pipeline.domain.i18n import DUTCH, N_
from pipeline.domain.message_words import Written
from pipeline.infrastructure.message_details import API_KEY, JOB, USER, senders, template_names
from pipeline.infrastructure.message_search import MessageSearch, all_matches, count_matches
from pipeline.infrastructure.storage import Storage

log = logging.getLogger(__name__)

HEADER = (N_("Recipient"), N_("Reference"), N_("Template"), N_("Channel"), N_("Sent by"), N_("Spreadsheet"),
          N_("Status"), N_("Accepted at"), N_("API key"), N_("Message ID"))
CHUNK = 1000  # rows read, looked up and written at a time
# How long a background report stays downloadable: it holds recipients, and is made to be fetched at once.
KEPT_FOR = datetime.timedelta(days=1)


def header(written: Written) -> list[str]:
    return [written.word(name) for name in HEADER]


def csv_rows(chunk: list[Notification], written: Written) -> list[list[str]]:
    who = senders(chunk)
    names = template_names(chunk)
    rows = []
    for n in chunk:
        sender = who.get(str(n.id))
        kind, name = (sender.kind, sender.name) if sender else (None, "")
        rows.append([
            written.recipient(n.notification_type, n.to), n.reference or "",
            names.get((str(n.template_id), n.template_version), ""), written.channel(n.notification_type),
            name if kind == USER else "", name if kind == JOB else "", written.status(n.notification_type, n.status),
            written.time(n.created_at), name if kind == API_KEY else "", str(n.id),
        ])
    return rows


def stream_csv(service: Service, search: MessageSearch, written: Written) -> Iterator[str]:
    """The report as text pieces, a chunk of rows at a time."""
    yield csv_text([header(written)])
    for chunk in all_matches(service, search, chunk=CHUNK):
        yield csv_text(csv_rows(chunk, written))


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
    written = Written(report.language or DUTCH, service.time_zone)
    total = count_matches(service, search)
    MessageReport.update(rows_total=total, rows_written=0).where(MessageReport.id == report.id).execute()
    out = io.StringIO()
    out.write(csv_text([header(written)]))
    done = 0
    for chunk in all_matches(service, search, chunk=CHUNK):
        out.write(csv_text(csv_rows(chunk, written)))
        done += len(chunk)
        # Progress for the page; the total is a bound, as messages past retention drop out meanwhile.
        MessageReport.update(rows_written=done, rows_total=max(total, done)).where(
            MessageReport.id == report.id).execute()
    storage.put(report_key(report), out.getvalue().encode("utf-8-sig"))
    MessageReport.update(status=READY, finished_at=utcnow(), rows_total=done).where(
        (MessageReport.id == report.id) & (MessageReport.status == PENDING)).execute()
    log.info("messages report %s of service %s: %d rows", report.id, service.id, done)
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
