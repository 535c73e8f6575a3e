"""A bulk job's report (CSV): every row of the job with its recipient, reference, status and times, in
the file's order, streamed in chunks, every cell safe to open in a spreadsheet; offered on the job page."""
from __future__ import annotations

import csv
import io
import re
import uuid

from models.db import utcnow
from models.job import Job
from models.notification import Notification
from pipeline.stages.jobs import report
from tests.console.browser import assert_accessible
from tests.console.service_pages import signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_sample_template, create_service
from tests.jobs.helpers import csv_file, make_job, phone


def _job_with_sent_rows(service, count: int) -> Job:
    template = create_sample_template(service=service, name="Herinnering")
    job = make_job(service, template, csv_file(["phone number", "name"], [[phone(n), f"P{n}"] for n in range(count)]))
    now = utcnow()
    rows = []
    for n in range(count):
        row = Notification(id=uuid.uuid4(), service=service, key_type="live", notification_type="sms",
                           template_id=template.id, template_version=1, to=phone(n), normalised_to=phone(n),
                           status="delivered" if n % 3 else "permanent-failure", body="x", job_id=job.id,
                           job_row_number=n, created_at=now, sent_at=now, completed_at=now,
                           reference="=HYPERLINK(\"http://evil\")" if n == 1 else None)
        rows.append(row)
    rows.reverse()  # stored out of order: the report follows the file's rows, not the insert order
    Notification.bulk_create(rows, batch_size=100)
    Job.update(rows_processed=count, status="finished").where(Job.id == job.id).execute()
    return job


def _member_client(console_app, service):
    member = create_console_user(service=service, permissions=["view_activity"])
    return signed_in_client(console_app, member.user)


def test_the_report_holds_every_row_in_order_across_chunks(console_app, monkeypatch):
    monkeypatch.setattr(report, "CHUNK", 4)
    service = create_service()
    job = _job_with_sent_rows(service, 10)
    response = _member_client(console_app, service).get(f"/services/{service.id}/jobs/{job.id}/report.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert re.fullmatch(rf'attachment; filename="report-people-{job.id}\.csv"',
                        response.headers["Content-Disposition"])
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0] == ["Row number", "Recipient", "Reference", "Template", "Type", "Status", "Time", "Sent at",
                       "Completed at", "ID", "Fell back to", "Fallback status", "Fallback ID", "Fallback refused"]
    assert [r[0] for r in rows[1:]] == [str(n + 2) for n in range(10)]
    assert rows[1][1:6] == [phone(0), "", "Herinnering", "sms", "permanent-failure"]
    assert rows[2][1:6] == [phone(1), "'=HYPERLINK(\"http://evil\")", "Herinnering", "sms", "delivered"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", rows[1][6])
    assert {r[9] for r in rows[1:]} == {str(n.id) for n in Notification.select().where(Notification.job_id == job.id)}


def test_another_services_job_has_no_report(console_app):
    service, other = create_service(), create_service()
    job = _job_with_sent_rows(other, 1)
    client = _member_client(console_app, service)
    assert client.get(f"/services/{service.id}/jobs/{job.id}/report.csv").status_code == 404
    assert client.get(f"/services/{service.id}/jobs/not-an-id/report.csv").status_code == 404


def test_the_job_page_offers_the_report(signed_in_member, service):
    page = signed_in_member
    job = _job_with_sent_rows(service, 3)
    page.goto(f"/services/{service.id}/jobs/{job.id}")
    assert_accessible(page)
    with page.expect_download() as download:
        page.click("#job-report")
    assert download.value.suggested_filename == f"report-people-{job.id}.csv"
    lines = open(download.value.path(), encoding="utf-8").read().splitlines()
    assert len(lines) == 4 and lines[0].startswith("Row number,Recipient,Reference")
    assert lines[1].startswith(f"2,{phone(0)},,Herinnering,sms,permanent-failure,")
