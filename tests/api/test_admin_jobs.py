"""Admin API of bulk jobs: list, read with progress counts, cancel until started; answers match
their documented schemas; unknown and malformed ids are 404 and 400."""
from __future__ import annotations

import uuid

import jsonschema

from api.admin import response_schemas
from models.job import Job
from pipeline.stages.jobs import lifecycle, rows
from tests.admin_helpers import admin_headers, errors
from tests.factories import create_sample_template, create_service
from tests.jobs.helpers import make_job, sms_rows


def test_a_job_is_read_with_its_counts_and_listed(client, service):
    template = create_sample_template(service=service)
    job = make_job(service, template, sms_rows(3), file_name="march.csv")
    lifecycle.start_job(job.id)
    rows.create_chunk(job.id, 0, lambda new: None, lambda: None)

    response = client.get(f"/admin/services/{service.id}/jobs/{job.id}", headers=admin_headers())
    body = response.get_json()
    jsonschema.validate(body, response_schemas.job)
    assert (body["original_file_name"], body["status"], body["template_id"]) == ("march.csv", "finished",
                                                                                 str(template.id))
    assert body["counts"] == {"rows": 3, "processed": 3, "sending": 3, "delivered": 0, "failed": 0, "cancelled": 0}
    listed = client.get(f"/admin/services/{service.id}/jobs", headers=admin_headers()).get_json()
    jsonschema.validate(listed, response_schemas.jobs)
    assert [j["id"] for j in listed["jobs"]] == [str(job.id)]


def test_cancel_a_waiting_job_then_not_again(client, service):
    job = make_job(service, create_sample_template(service=service), sms_rows(2))
    url = f"/admin/services/{service.id}/jobs/{job.id}/cancel"
    response = client.post(url, headers=admin_headers())
    assert response.status_code == 200 and response.get_json()["status"] == "cancelled"
    assert Job.get_by_id(job.id).status == "cancelled"
    assert errors(client.post(url, headers=admin_headers())) == (
        400, [("BadRequestError", "Job cannot be cancelled: it is cancelled")])


def test_another_services_job_unknown_and_malformed_ids(client, service):
    job = make_job(service, create_sample_template(service=service), sms_rows(1))
    other = create_service()
    assert errors(client.post(f"/admin/services/{other.id}/jobs/{job.id}/cancel", headers=admin_headers()))[0] == 404
    assert errors(client.get(f"/admin/services/{service.id}/jobs/{uuid.uuid4()}", headers=admin_headers()))[0] == 404
    status, problems = errors(client.get(f"/admin/services/{service.id}/jobs/nope", headers=admin_headers()))
    assert status == 400 and problems[0][0] == "ValidationError"
    assert Job.get_by_id(job.id).status == "pending"
