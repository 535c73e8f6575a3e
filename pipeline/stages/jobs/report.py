"""A bulk job's report: a CSV row per notification of the job, in the file's row order, as GOV.UK
Notify's "download this report". Streamed a chunk of rows at a time along the (job_id, job_row_number)
index, so a 100,000-row job is never held in memory nor read in one long query.

It is written for the person who asked for it (pipeline.domain.message_words.Written): its column names,
channels and statuses in their language, as the console words them; times on the service's clock as the
console writes them; each recipient as the console shows it (a phone number written one way, a letter's
address on one line). A row whose message fell back (issue 44) names the channels sent instead, the last
one's status and id, and the refusal that ended its chain.
"""
from __future__ import annotations

from collections.abc import Iterator

from models.job import Job
from models.notification import Notification
from pipeline.domain.csv_output import csv_text
from pipeline.domain.i18n import N_
from pipeline.domain.message_words import Written
from pipeline.stages.jobs.chains import Chains, chains

HEADER = (N_("Row number"), N_("Recipient"), N_("Reference"), N_("Template"), N_("Channel"), N_("Status"),
          N_("Accepted at"), N_("Sent at"), N_("Completed at"), N_("Message ID"), N_("Sent instead"),
          N_("Sent instead: status"), N_("Sent instead: message ID"), N_("Why nothing more was sent"))
CHUNK = 1000
_COLUMNS = (Notification.id, Notification.to, Notification.reference, Notification.notification_type,
            Notification.status, Notification.created_at, Notification.sent_at, Notification.completed_at,
            Notification.job_row_number)


def _row(n: Notification, template_name: str, fell_back: Chains, written: Written) -> list[object]:
    chain = fell_back.of(n.id)
    last = chain[-1] if chain else None
    return [(n.job_row_number or 0) + 2,  # as the spreadsheet numbers it: its header is row 1
            written.recipient(n.notification_type, n.to), n.reference, template_name,
            written.channel(n.notification_type), written.status(n.notification_type, n.status),
            written.time(n.created_at), written.time(n.sent_at), written.time(n.completed_at), str(n.id),
            ", ".join(written.channel(step.notification_type) for step in chain),
            written.status(last.notification_type, last.status) if last else "", str(last.id) if last else "",
            written.refusal(fell_back.refused(n.id))]


def stream_job_report(job: Job, template_name: str, written: Written) -> Iterator[str]:
    """The report as text pieces: the header, then a chunk of rows at a time."""
    yield csv_text([[written.word(name) for name in HEADER]])
    after = -1
    while True:
        chunk = list(Notification.select(*_COLUMNS)
                     .where((Notification.job_id == job.id) & (Notification.job_row_number > after))
                     .order_by(Notification.job_row_number).limit(CHUNK))
        if chunk:
            fell_back = chains(job.service_id, [n.id for n in chunk])
            yield csv_text(_row(n, template_name, fell_back, written) for n in chunk)
        if len(chunk) < CHUNK:
            return
        after = chunk[-1].job_row_number or 0
