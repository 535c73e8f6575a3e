"""A bulk job's report: a CSV row per notification of the job, in the file's row order, as GOV.UK
Notify's "download this report". Streamed a chunk of rows at a time along the (job_id, job_row_number)
index, so a 100,000-row job is never held in memory nor read in one long query.

Values are the v2 API's (public status names, wire date-times, the id), like the messages report. A row
whose message fell back (issue 44) names the channels sent instead, the last one's status and id, and
the refusal that ended its chain.
"""
from __future__ import annotations

from collections.abc import Iterator

from models.job import Job
from models.notification import Notification
from pipeline.domain.csv_output import csv_text
from pipeline.domain.formatting import iso
from pipeline.domain.statuses import public_status
from pipeline.stages.jobs.chains import Chains, chains
from pipeline.stages.message_report import recipient

HEADER = ["Row number", "Recipient", "Reference", "Template", "Type", "Status", "Time", "Sent at",
          "Completed at", "ID", "Fell back to", "Fallback status", "Fallback ID", "Fallback refused"]
CHUNK = 1000
_COLUMNS = (Notification.id, Notification.to, Notification.reference, Notification.notification_type,
            Notification.status, Notification.created_at, Notification.sent_at, Notification.completed_at,
            Notification.job_row_number)


def _row(n: Notification, template_name: str, fell_back: Chains) -> list[object]:
    chain = fell_back.of(n.id)
    last = chain[-1] if chain else None
    return [(n.job_row_number or 0) + 2,  # as the spreadsheet numbers it: its header is row 1
            recipient(n), n.reference, template_name, n.notification_type,
            public_status(n.notification_type, n.status), iso(n.created_at), iso(n.sent_at),
            iso(n.completed_at), str(n.id), ", ".join(step.notification_type for step in chain),
            public_status(last.notification_type, last.status) if last else "", str(last.id) if last else "",
            fell_back.refusal(n.id) or ""]


def stream_job_report(job: Job, template_name: str) -> Iterator[str]:
    """The report as text pieces: the header, then a chunk of rows at a time."""
    yield csv_text([HEADER])
    after = -1
    while True:
        chunk = list(Notification.select(*_COLUMNS)
                     .where((Notification.job_id == job.id) & (Notification.job_row_number > after))
                     .order_by(Notification.job_row_number).limit(CHUNK))
        if chunk:
            fell_back = chains(job.service_id, [n.id for n in chunk])
            yield csv_text(_row(n, template_name, fell_back) for n in chunk)
        if len(chunk) < CHUNK:
            return
        after = chunk[-1].job_row_number or 0
