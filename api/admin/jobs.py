"""Bulk jobs of a service: list them, read one with its progress, cancel one that has not started."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.schema import uuid_property
from core.jobs import cancel_job, find_job, list_jobs
from models.job import Job
from pipeline.domain.formatting import iso
from pipeline.stages.jobs.progress import job_progress

LIST_LIMIT = 250
job_path = {"type": "object", "properties": {"job_id": uuid_property()}}
_paths = {**admin_schemas.service_path["properties"], **job_path["properties"]}


def job_json(job: Job) -> dict[str, Any]:
    progress = job_progress(job)
    return {
        "id": str(job.id), "service_id": str(job.service_id), "template_id": str(job.template_id),
        "template_version": job.template_version, "original_file_name": job.original_file_name,
        "status": job.status, "scheduled_for": iso(job.scheduled_for), "created_at": iso(job.created_at),
        "created_by_user_id": str(job.created_by_user_id) if job.created_by_user_id else None,
        "processing_started": iso(job.processing_started), "processing_finished": iso(job.processing_finished),
        "counts": {"rows": progress.rows, "processed": progress.processed, "sending": progress.sending,
                   "delivered": progress.delivered, "failed": progress.failed, "cancelled": progress.cancelled},
    }


# The summary gives LIST_LIMIT's value as written: the reference page (/docs) translates it by its text.
@admin_blueprint.get("/services/<service_id>/jobs")
@documented("The service's bulk jobs, newest first (the latest 250), with their progress.",
            {200: responses.jobs}, path=admin_schemas.service_path["properties"])
def get_jobs(service_id: str) -> Response:
    return jsonify({"jobs": [job_json(job) for job in list_jobs(service_id, LIST_LIMIT)]})


@admin_blueprint.get("/services/<service_id>/jobs/<job_id>")
@documented("A bulk job and its progress: rows made into notifications, and those sending, delivered, failed.",
            {200: responses.job}, path=_paths)
def get_job(service_id: str, job_id: str) -> Response:
    return jsonify(job_json(find_job(service_id, job_id)))


@admin_blueprint.post("/services/<service_id>/jobs/<job_id>/cancel")
@documented("Cancel a bulk job that has not started (pending or scheduled); 400 once it has.",
            {200: responses.job}, path=_paths)
def post_cancel_job(service_id: str, job_id: str) -> Response:
    return jsonify(job_json(cancel_job(service_id, job_id)))
