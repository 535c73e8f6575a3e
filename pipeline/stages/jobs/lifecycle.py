"""A job's life as business rules: make it from a checked sheet, start it when due, cancel it while
it waits. The console and the admin API call these; the workers run start (pipeline/stages/jobs/rows.py
makes the notifications)."""
from __future__ import annotations

import datetime
import uuid

from models import audit
from models.db import database, utcnow
from models.job import CANCELLED, IN_PROGRESS, LIMITS_EXCEEDED, PENDING, SCHEDULED, WAITING, Job
from models.service import Service
from models.template import Template, TemplateVersion
from pipeline.domain.errors import BadRequestError, NoResultFound, TooManyRequestsError
from pipeline.infrastructure import daily_limits
from pipeline.stages.jobs.checking import CheckedSheet
from pipeline.stages.jobs.rows import forget_rows, keep_rows

MAX_SCHEDULE_AHEAD = datetime.timedelta(days=7)
# A job without its uploaded rows, which only the stage making notifications reads (decrypting them
# costs as much as the rest of a page).
JOB_COLUMNS = [field for field in Job._meta.sorted_fields if field is not Job.rows]


def create_job(service: Service, version: TemplateVersion, file_name: str, checked: CheckedSheet, *,
               user_id: object = None, scheduled_for: datetime.datetime | None = None,
               now: datetime.datetime | None = None) -> Job:
    """A job of the checked rows, waiting to start (now, or at scheduled_for: naive UTC)."""
    if checked.problems:
        raise BadRequestError("The file has problems: fix them and upload it again")
    now = now or utcnow()
    if scheduled_for is not None and not now < scheduled_for <= now + MAX_SCHEDULE_AHEAD:
        raise BadRequestError("scheduled_for datetime can only be 7 days in the future"
                              if scheduled_for > now else "scheduled_for datetime can not be in the past")
    with database.atomic():
        job = Job.create(
            id=uuid.uuid4(), service=service, template_id=version.template.id, template_version=version.version,
            original_file_name=file_name, notification_count=len(checked.rows),
            status=SCHEDULED if scheduled_for else PENDING, scheduled_for=scheduled_for,
            created_by_user_id=user_id, created_at=now, international_rows=checked.international_rows,
        )
        keep_rows(job.id, checked.rows)
        audit.record(service.id, "job.create", subject_id=job.id,
                     after={"file": file_name, "rows": len(checked.rows), "scheduled_for": scheduled_for})
    return job


def find_job(service_id: object, job_id: object) -> Job:
    try:
        job_uuid = uuid.UUID(str(job_id))
    except ValueError:
        raise NoResultFound() from None
    job = Job.select(*JOB_COLUMNS).where((Job.id == job_uuid) & (Job.service == service_id)).first()
    if job is None:
        raise NoResultFound()
    return job


def cancel_job(service_id: object, job_id: object) -> Job:
    """Cancel a job that has not started; refused once it has."""
    job = find_job(service_id, job_id)
    with database.atomic():
        # Compare-and-set: a start racing with the cancel moves it first or finds it cancelled.
        cancelled = (Job.update(status=CANCELLED, rows=None)
                     .where((Job.id == job.id) & Job.status.in_(WAITING)).execute())
        if not cancelled:
            status = Job.select(Job.status).where(Job.id == job.id).scalar()
            raise BadRequestError(f"Job cannot be cancelled: it is {status}")
        forget_rows(job.id)
        audit.record(job.service_id, "job.cancel", subject_id=job.id, before={"status": job.status},
                     after={"status": CANCELLED})
    return find_job(service_id, job_id)


def start_job(job_id: object, now: datetime.datetime | None = None) -> bool:
    """Start a waiting job that is due: count all its rows against today's limits, then mark it in
    progress. False when it is not due, not waiting (started, cancelled) or over the limits."""
    now = now or utcnow()
    job = Job.select(*JOB_COLUMNS).where(Job.id == job_id).first()
    if job is None or job.status not in WAITING or (job.scheduled_for is not None and job.scheduled_for > now):
        return False
    service = job.service
    channel = _channel(job)
    wanted = {channel: job.notification_count, "international_sms": job.international_rows}
    try:
        reserved = daily_limits.reserve(service.id, wanted, {kind: service.daily_limit(kind) for kind in wanted})
    except TooManyRequestsError:
        with database.atomic():
            if Job.update(status=LIMITS_EXCEEDED, rows=None).where(
                    (Job.id == job.id) & Job.status.in_(WAITING)).execute():
                forget_rows(job.id)
        return False
    started = (Job.update(status=IN_PROGRESS, processing_started=now, progressed_at=now)
               .where((Job.id == job.id) & Job.status.in_(WAITING)).execute())
    if not started:  # cancelled, or started by a duplicate message, since it was read
        daily_limits.release(reserved)
    return bool(started)


def _channel(job: Job) -> str:
    return Template.get_by_id(job.template_id).template_type


def due_jobs(now: datetime.datetime, grace: datetime.timedelta) -> list[uuid.UUID]:
    """Waiting jobs due for longer than grace: their start message was lost."""
    return [job.id for job in Job.select(Job.id).where(
        ((Job.status == PENDING) & (Job.created_at <= now - grace))
        | ((Job.status == SCHEDULED) & (Job.scheduled_for <= now - grace)))]


def stalled_jobs(now: datetime.datetime, after: datetime.timedelta) -> list[Job]:
    """Jobs in progress that made no progress for a while: their stage's message was lost."""
    return list(Job.select(Job.id, Job.rows_processed).where(
        (Job.status == IN_PROGRESS) & (Job.progressed_at <= now - after)))
