"""A job's page (its progress, live, and its messages), the service's jobs, and cancelling a job
that has not started."""
from __future__ import annotations

from typing import Any

from flask import Response, abort, redirect, render_template, request, url_for
from flask_babel import gettext as _, lazy_gettext as _l

from console import downloads
from console.acting import perform
from console.auth import current_service, service_permission_required
from console.jobs.blueprint import bp
from core.jobs import cancel_job, find_job, job_channel, job_report, job_template_name, list_jobs
from models.job import WAITING, Job
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.template import Template, TemplateVersion
from pipeline.domain.errors import NoResultFound, ValidationError
from pipeline.stages.jobs.chains import chains
from pipeline.stages.jobs.progress import job_progress

MESSAGES_PER_PAGE = 50
JOBS_SHOWN = 100


def _job(service_id: str, job_id: str) -> Job:
    try:
        return find_job(service_id, job_id)
    except (NoResultFound, ValidationError):  # a malformed id names no job either
        abort(404)


@bp.get("/services/<service_id>/jobs")
@service_permission_required("view_activity")
def index(service_id: str) -> Any:
    jobs = list_jobs(service_id, JOBS_SHOWN)
    names = {v.template_id: v.name for v in TemplateVersion.select(TemplateVersion.template, TemplateVersion.name)
             .join(Template).where((Template.service == service_id)
                                   & (TemplateVersion.version == Template.current_version))}
    return render_template("jobs/index.html", service=current_service(), jobs=jobs, templates=names)


@bp.get("/services/<service_id>/jobs/<job_id>")
@service_permission_required("view_activity")
def job(service_id: str, job_id: str) -> Any:
    found = _job(service_id, job_id)
    page = max(1, request.args.get("page", 1, type=int) or 1)
    first = (page - 1) * MESSAGES_PER_PAGE
    messages = list(Notification.select(Notification.id, Notification.to, Notification.status,
                                        Notification.notification_type, Notification.job_row_number)
                    .where((Notification.job_id == found.id)
                           & Notification.job_row_number.between(first, first + MESSAGES_PER_PAGE - 1))
                    .order_by(Notification.job_row_number))
    fell_back = (NotificationFallback.select().join(Notification).where(
        (Notification.job_id == found.id) & NotificationFallback.sent_as.is_null(False)).count())
    chained = chains(found.service_id, [message.id for message in messages])
    return render_template(
        "jobs/job.html", service=current_service(), job=found, progress=job_progress(found),
        template_name=job_template_name(found), fell_back=fell_back, chains=chained,
        chained=bool(chained.steps) or any(chained.refused(message.id) for message in messages),
        messages=messages, channel=job_channel(found), page=page, first_row=first,
        has_next=first + MESSAGES_PER_PAGE < found.rows_processed, cancellable=found.status in WAITING,
    )


@bp.get("/services/<service_id>/jobs/<job_id>/report.csv")
@service_permission_required("view_activity")
def report(service_id: str, job_id: str) -> Response:
    found = _job(service_id, job_id)
    _found, pieces = job_report(service_id, str(found.id), downloads.written())
    # "overzicht-afspraken-<id>.csv": what it is, the upload's name (without its extension) and the job.
    return downloads.csv_download(pieces, downloads.file_name(
        _("report"), found.original_file_name.rsplit(".", 1)[0], str(found.id)))


@bp.post("/services/<service_id>/jobs/<job_id>/cancel")
@service_permission_required("send_messages")
def cancel(service_id: str, job_id: str) -> Any:
    found = _job(service_id, job_id)
    perform(lambda: cancel_job(service_id, str(found.id)), confirm=_l("Sending cancelled"))
    return redirect(url_for("jobs.job", service_id=service_id, job_id=found.id))
