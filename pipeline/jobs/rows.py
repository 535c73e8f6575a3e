"""The stage that turns one chunk of a job's rows into notifications.

A chunk's notifications are inserted in one short transaction with the job's progress; the unique
(job_id, job_row_number) index makes a retried chunk create nothing twice: rows whose notification
exists are skipped. The caller's enqueue runs inside the transaction, so it can send the deliveries
and the next chunk after the commit.
"""
from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable

from config import get_settings
from models.db import database, insert_rows, utcnow
from models.job import FINISHED, IN_PROGRESS, Job
from models.notification import Notification
from models.plain_rows import tuple_rows
from models.service import ReplyToAddress, Service, SmsSender, default_of
from models.template import Template, TemplateVersion, contact_block_of
from pipeline.jobs.checking import filled
from pipeline.letters.content import filled_letter, postage_of
from pipeline.new_notification import new_notification
from pipeline.recipients import recipient_of, validate_postal_address

CHUNK_ROWS = 1000
INSERT_ROWS = 200  # per INSERT statement: SQLite takes at most 32,766 parameters in one
# The decrypted rows of the job this process worked on last: a job's chunks follow one another,
# and decrypting all its rows again for each chunk would cost more than the chunk.
_last_rows: tuple[uuid.UUID, list] | None = None


def _rows(job: Job) -> list:
    global _last_rows
    if _last_rows is None or _last_rows[0] != job.id:
        _last_rows = (job.id, Job.select(Job.id, Job.rows).where(Job.id == job.id).first().rows)
    return _last_rows[1]


def _reply_to_text(service: Service, channel: str) -> str | None:
    if channel == "letter":
        return None  # a letter's contact block is filled in per row
    if channel == "sms":
        sender = default_of(SmsSender, service)
        return sender.sms_sender if sender else get_settings().default_sms_sender
    address = default_of(ReplyToAddress, service)
    return address.email_address if address else None


def _notification(job: Job, version: TemplateVersion, reply_to: str | None, row_number: int, row: list,
                  now: datetime.datetime) -> Notification:
    channel = version.template.template_type
    raw, values = row
    # Recipients and addresses were checked at upload (these raise otherwise), against the job's own version.
    if channel == "letter":
        address = validate_postal_address(values)
        rendered, contact = filled_letter(version, contact_block_of(version), values)
        return new_notification(
            job.service_id, channel, address, body=rendered.body, subject=rendered.subject, version=version,
            reply_to_text=contact, personalisation=values, postage=postage_of(address, version),
            job_id=job.id, job_row_number=row_number, created_at=now)
    body, subject = filled(channel, version, values)
    return new_notification(
        job.service_id, channel, recipient_of(channel, raw), body=body, subject=subject, version=version,
        reply_to_text=reply_to, personalisation=values, job_id=job.id, job_row_number=row_number, created_at=now)


Enqueue = Callable[[list[Notification], bool], None]


def create_chunk(job_id: object, chunk: int, enqueue: Enqueue, now: datetime.datetime | None = None) -> int:
    """Make the notifications of rows chunk*CHUNK_ROWS.. of a job in progress; returns how many it made.

    enqueue(new notifications, whether chunks follow) is called inside the transaction.
    """
    job = Job.select(Job.id, Job.service, Job.template_id, Job.template_version, Job.notification_count,
                     Job.status).where(Job.id == job_id).first()
    if job is None or job.status != IN_PROGRESS:
        return 0
    first, last = chunk * CHUNK_ROWS, min((chunk + 1) * CHUNK_ROWS, job.notification_count)
    if first >= last:
        return 0
    now = now or utcnow()
    service = Service.get_by_id(job.service_id)
    # The job's own version, even if the template was archived since: the rows were checked against it.
    version = (TemplateVersion.select(TemplateVersion, Template).join(Template)
               .where((Template.id == job.template_id) & (TemplateVersion.version == job.template_version)).get())
    reply_to = _reply_to_text(service, version.template.template_type)
    rows = _rows(job)
    with database.atomic():
        done = {n for (n,) in tuple_rows(Notification.select(Notification.job_row_number).where(
            (Notification.job_id == job.id) & Notification.job_row_number.between(first, last - 1)))}
        new = [_notification(job, version, reply_to, n, rows[n], now) for n in range(first, last) if n not in done]
        for start in range(0, len(new), INSERT_ROWS):
            insert_rows(Notification, new[start:start + INSERT_ROWS])
        (Job.update(rows_processed=Job.rows_processed + len(new), progressed_at=now)
         .where(Job.id == job.id).execute())
        processed = Job.select(Job.rows_processed).where(Job.id == job.id).scalar()
        finished = processed >= job.notification_count
        if finished:
            # Every row is a notification now: the uploaded rows are no longer needed.
            Job.update(status=FINISHED, processing_finished=now, rows=None).where(Job.id == job.id).execute()
        enqueue(new, last < job.notification_count)
    return len(new)
