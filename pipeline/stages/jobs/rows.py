"""The stage that turns one chunk of a job's rows into notifications.

A job's rows are kept a part (CHUNK_ROWS rows) at a time, each encrypted on its own (models.job.JobRows),
and chunk n makes the notifications of part n: the stage decrypts that part alone, so its memory is
bounded by the part whatever the job's size, and no row outlives the chunk that made it. A chunk's
notifications are inserted in one short transaction with the job's progress, and the transaction
takes (deletes) its part first: a chunk's message delivered twice finds the part gone and makes
nothing. The caller's enqueue runs inside the transaction, so it can send the deliveries and the
next chunk after the commit.
"""
from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Sequence

from config import get_settings
from models.db import database, utcnow
from models.job import FINISHED, IN_PROGRESS, Job, JobRows
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.service import ReplyToAddress, Service, SmsSender, default_of
from models.template import Template, TemplateVersion, contact_block_of
from pipeline.domain.letters.content import filled_letter, postage_of
from pipeline.domain.recipients import recipient_of, validate_postal_address
from pipeline.infrastructure import throughput
from pipeline.infrastructure.throughput import Enqueue
from pipeline.stages.fallback import saving_links
from pipeline.stages.jobs.checking import filled
from pipeline.stages.new_notification import new_chain, new_notification

CHUNK_ROWS = 1000
PARTS_PER_INSERT = 10  # parts (their ciphertexts) per INSERT statement


def keep_rows(job_id: object, rows: Sequence[list], first_part: int = 0) -> None:
    """Store a job's checked rows (from row first_part*CHUNK_ROWS) a part at a time, in the caller's
    transaction."""
    parts = [{"job": job_id, "part": first_part + n, "first_row": (first_part + n) * CHUNK_ROWS,
              "rows": rows[n * CHUNK_ROWS:(n + 1) * CHUNK_ROWS]}
             for n in range(-(-len(rows) // CHUNK_ROWS))]
    for start in range(0, len(parts), PARTS_PER_INSERT):
        JobRows.insert_many(parts[start:start + PARTS_PER_INSERT]).execute()


def forget_rows(job_id: object) -> None:
    """Drop what is left of a job's rows (it was cancelled, or over the limits at its start)."""
    JobRows.delete().where(JobRows.job == job_id).execute()


def _part(job: Job, chunk: int) -> tuple[int, list] | None:
    """(number of its first row, rows) of the job's part `chunk`, or None once it was made."""
    found = JobRows.select(JobRows.first_row, JobRows.rows).where(
        (JobRows.job == job.id) & (JobRows.part == chunk)).first()
    if found is None and _split_rows_of_before_parts(job):
        return _part(job, chunk)
    return None if found is None else (found.first_row, found.rows)


def _split_rows_of_before_parts(job: Job) -> bool:
    """A job uploaded before rows were kept in parts (its rows in Job.rows, whole): split what is left
    of them into parts, once. True when it did (or a concurrent run did)."""
    legacy = Job.select(Job.rows).where((Job.id == job.id) & Job.rows.is_null(False)).first()
    if legacy is None:
        return False
    done = job.rows_processed // CHUNK_ROWS  # chunks are made in order, each whole
    with database.atomic():
        # The first statement writes: a concurrent split waits here, then finds nothing to take.
        if Job.update(rows=None).where((Job.id == job.id) & Job.rows.is_null(False)).execute():
            keep_rows(job.id, legacy.rows[done * CHUNK_ROWS:], first_part=done)
    return True


def _reply_to_text(service: Service, channel: str) -> str | None:
    if channel == "letter":
        return None  # a letter's contact block is filled in per row
    if channel == "sms":
        sender = default_of(SmsSender, service)
        return sender.sms_sender if sender else get_settings().default_sms_sender
    address = default_of(ReplyToAddress, service)
    return address.email_address if address else None


def _notification(job: Job, version: TemplateVersion, reply_to: str | None, row_number: int, values: dict,
                  raw: str, now: datetime.datetime) -> Notification:
    channel = version.template.template_type
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


def _made(job: Job, version: TemplateVersion, reply_to: str | None, first: int, rows: list[list],
          now: datetime.datetime) -> tuple[list[Notification], dict[uuid.UUID, NotificationFallback]]:
    """A part's notifications, and the chain links of those whose row falls back
    (pipeline/stages/jobs/alternatives.py)."""
    made, chains = [], {}
    for n, (raw, values, *rest) in enumerate(rows):
        row = _notification(job, version, reply_to, first + n, values, raw, now)
        chain = new_chain(row, rest[0] if rest else None)
        if chain is not None:
            chains[row.id] = chain
        made.append(row)
    return made, chains


def create_chunk(job_id: object, chunk: int, enqueue: Enqueue, enqueue_next: Callable[[], None],
                 now: datetime.datetime | None = None) -> int:
    """Make the notifications of part `chunk` of a job in progress; returns how many it made.

    enqueue(new notifications) and, when chunks follow, enqueue_next() are called inside the
    transaction, unless the part was made already (the message delivered twice): then nothing is made
    or enqueued.
    """
    job = Job.select(Job.id, Job.service, Job.template_id, Job.template_version, Job.notification_count,
                     Job.rows_processed, Job.status).where(Job.id == job_id).first()
    if job is None or job.status != IN_PROGRESS:
        return 0
    part = _part(job, chunk)
    if part is None:
        return 0
    first, rows = part
    now = now or utcnow()
    service = Service.get_by_id(job.service_id)
    # The job's own version, even if the template was archived since: the rows were checked against it.
    version = (TemplateVersion.select(TemplateVersion, Template).join(Template)
               .where((Template.id == job.template_id) & (TemplateVersion.version == job.template_version)).get())
    reply_to = _reply_to_text(service, version.template.template_type)
    new, chains = _made(job, version, reply_to, first, rows, now)
    with database.atomic():
        # Taking the part is the transaction's first statement, a write: a second run of this chunk
        # waits for the first to commit, then takes nothing (and SQLite, asked for the write lock
        # first, waits its turn instead of failing a read transaction that another writer overtook).
        if not JobRows.delete().where((JobRows.job == job.id) & (JobRows.part == chunk)).execute():
            return 0
        # Counted against today's limits when the job started.
        throughput.seam().record(new, enqueue, with_row=saving_links(chains))
        (Job.update(rows_processed=Job.rows_processed + len(new), progressed_at=now)
         .where(Job.id == job.id).execute())
        processed = Job.select(Job.rows_processed).where(Job.id == job.id).scalar()
        if processed >= job.notification_count:  # every row is a notification now
            Job.update(status=FINISHED, processing_finished=now).where(Job.id == job.id).execute()
        if first + len(new) < job.notification_count:
            enqueue_next()
    return len(new)
