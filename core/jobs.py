"""Bulk jobs of a service: make one from a checked file and start it, find one, cancel one that has
not started. The stages a job runs through are pipeline/stages/jobs; the actor that starts it is workers/jobs."""
from __future__ import annotations

import datetime
from collections.abc import Iterator

from core.ids import checked_uuid
from core.services import find_service
from models.job import Job
from models.template import Template, TemplateVersion, find_version
from pipeline.domain.errors import NoResultFound
from pipeline.domain.message_words import Written
from pipeline.stages.jobs import lifecycle
from pipeline.stages.jobs.checking import CheckedSheet
from pipeline.stages.jobs.report import stream_job_report
from workers.jobs import enqueue_start


def create_and_start_job(service_id: str, template_id: str, template_version: int, file_name: str,
                         checked: CheckedSheet, *, user_id: object = None,
                         scheduled_for: datetime.datetime | None = None) -> Job:
    """A job of the checked rows at this version of the template, started now or at scheduled_for
    (naive UTC); refused while the file has problems or the time is out of range."""
    service = find_service(service_id)
    version = find_version(service, template_id, template_version)
    if version is None:
        raise NoResultFound()
    job = lifecycle.create_job(service, version, file_name, checked, user_id=user_id, scheduled_for=scheduled_for)
    enqueue_start(job.id, scheduled_for)
    return job


def find_job(service_id: str, job_id: str) -> Job:
    """A job of this service (without its rows): 400 for a malformed id, 404 for an unknown one."""
    service = find_service(service_id)
    return lifecycle.find_job(service.id, checked_uuid("job_id", job_id))


def list_jobs(service_id: str, limit: int) -> list[Job]:
    """The service's latest jobs (without their rows), newest first."""
    service = find_service(service_id)
    return list(Job.select(*lifecycle.JOB_COLUMNS).where(Job.service == service)
                .order_by(Job.created_at.desc()).limit(limit))


def cancel_job(service_id: str, job_id: str) -> Job:
    """Cancel a job that has not started; refused once it has."""
    job = find_job(service_id, job_id)
    return lifecycle.cancel_job(job.service_id, job.id)


def job_template_name(job: Job) -> str:
    """The name of the template version the job sent."""
    version = (TemplateVersion.select(TemplateVersion.name)
               .where((TemplateVersion.template == job.template_id)
                      & (TemplateVersion.version == job.template_version)).first())
    return version.name if version else ""


def job_channel(job: Job) -> str:
    """The channel of the job's template, which every row of the job is sent by."""
    return Template.select(Template.template_type).where(Template.id == job.template_id).scalar() or ""


def job_report(service_id: str, job_id: str, written: Written) -> tuple[Job, Iterator[str]]:
    """The job and its report (CSV text pieces, to stream) in the reader's words: each row's recipient,
    status and times."""
    job = find_job(service_id, job_id)
    return job, stream_job_report(job, job_template_name(job), written)
