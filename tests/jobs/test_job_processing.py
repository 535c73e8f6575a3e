"""A job's stages on a real worker: started when due, its rows made into notifications a chunk at a
time, each once, then delivered by the simulated provider; cancelled while it waits; over the limits."""
from __future__ import annotations

import datetime

import pytest

from models.db import utcnow
from models.job import CANCELLED, FINISHED, IN_PROGRESS, LIMITS_EXCEEDED, PENDING, SCHEDULED, Job, JobRows
from models.notification import Notification
from models.template import find_version
from pipeline.domain.errors import BadRequestError
from pipeline.infrastructure import daily_limits
from pipeline.stages.jobs import lifecycle, rows
from pipeline.stages.jobs.progress import job_progress
from pipeline.stages.jobs.upload import check_upload
from tests.factories import create_sample_template
from tests.jobs.helpers import csv_file, make_job, sms_rows, wait_for
from workers.jobs import enqueue_start


def test_a_job_of_2500_rows_becomes_2500_delivered_live_notifications(service, worker):
    template = create_sample_template(service=service, body="Hello ((name))")
    job = make_job(service, template, sms_rows(2500))
    enqueue_start(job.id, None)

    wait_for(lambda: Job.get_by_id(job.id).status == FINISHED)
    wait_for(lambda: job_progress(Job.get_by_id(job.id)).delivered == 2500)
    finished = Job.get_by_id(job.id)
    assert finished.rows_processed == 2500 and JobRows.select().where(JobRows.job == job.id).count() == 0
    notifications = Notification.select().where(Notification.job_id == job.id)
    assert notifications.count() == 2500
    row_7 = notifications.where(Notification.job_row_number == 7).get()
    assert (row_7.to, row_7.normalised_to, row_7.body) == ("0612000007", "+31612000007", "Hello Person 7")
    assert (row_7.key_type, row_7.api_key_id, row_7.status) == ("live", None, "delivered")
    progress = job_progress(finished)
    assert (progress.rows, progress.processed, progress.sending, progress.failed) == (2500, 2500, 0, 0)


def test_a_retried_chunk_creates_nothing_twice(service):
    template = create_sample_template(service=service)
    job = make_job(service, template, sms_rows(1500))
    assert lifecycle.start_job(job.id)
    made = []
    enqueue = lambda new: made.append(len(new))  # noqa: E731
    enqueue_next = lambda: made.append("next chunk")  # noqa: E731

    assert rows.create_chunk(job.id, 0, enqueue, enqueue_next) == 1000
    # The same message delivered again finds its part taken: nothing made, no next chunk sent twice.
    assert rows.create_chunk(job.id, 0, enqueue, enqueue_next) == 0
    assert rows.create_chunk(job.id, 1, enqueue, enqueue_next) == 500
    assert made == [1000, "next chunk", 500]
    assert Notification.select().where(Notification.job_id == job.id).count() == 1500
    assert Job.get_by_id(job.id).status == FINISHED
    assert JobRows.select().where(JobRows.job == job.id).count() == 0  # no uploaded row outlives its chunk


def test_a_job_uploaded_before_rows_were_kept_in_parts_is_made_all_the_same(service):
    template = create_sample_template(service=service, body="Hello ((name))")
    checked = check_upload(service, find_version(service, template.id), "people.csv", sms_rows(2500))
    job = lifecycle.create_job(service, find_version(service, template.id), "people.csv", checked)
    assert lifecycle.start_job(job.id)
    assert rows.create_chunk(job.id, 0, lambda new: None, lambda: None) == 1000  # made before the upgrade
    # As the release before kept them: every row in Job.rows, none in parts.
    JobRows.delete().where(JobRows.job == job.id).execute()
    Job.update(rows=checked.rows).where(Job.id == job.id).execute()

    assert rows.create_chunk(job.id, 1, lambda new: None, lambda: None) == 1000
    assert rows.create_chunk(job.id, 2, lambda new: None, lambda: None) == 500

    made = Notification.select().where(Notification.job_id == job.id).order_by(Notification.job_row_number)
    assert [n.job_row_number for n in made] == list(range(2500))
    assert made[2499].body == "Hello Person 2499"
    finished = Job.get_by_id(job.id)
    assert (finished.status, finished.rows) == (FINISHED, None)
    assert JobRows.select().where(JobRows.job == job.id).count() == 0


def test_starting_counts_every_row_against_todays_limit_once(service):
    template = create_sample_template(service=service)
    job = make_job(service, template, sms_rows(30))
    assert lifecycle.start_job(job.id)
    assert not lifecycle.start_job(job.id)  # a duplicate start message
    assert daily_limits.used_today(service.id, ["sms"]) == {"sms": 30}
    assert Job.get_by_id(job.id).status == IN_PROGRESS


def test_a_job_over_todays_limit_at_its_start_sends_nothing(service):
    service.sms_daily_limit = 40
    service.save()
    template = create_sample_template(service=service)
    job = make_job(service, template, sms_rows(30))
    daily_limits.reserve(service.id, {"sms": 20}, {"sms": 40})  # the API sent 20 meanwhile

    assert not lifecycle.start_job(job.id)
    assert Job.get_by_id(job.id).status == LIMITS_EXCEEDED
    assert daily_limits.used_today(service.id, ["sms"]) == {"sms": 20}
    assert JobRows.select().where(JobRows.job == job.id).count() == 0  # its rows will never be sent


def test_a_scheduled_job_waits_until_it_is_due_and_can_be_cancelled_until_then(service):
    template = create_sample_template(service=service)
    due = utcnow() + datetime.timedelta(hours=2)
    job = make_job(service, template, sms_rows(3), scheduled_for=due)
    assert job.status == SCHEDULED
    assert not lifecycle.start_job(job.id)  # not due yet
    cancelled = lifecycle.cancel_job(service.id, job.id)
    assert cancelled.status == CANCELLED
    assert not lifecycle.start_job(job.id, now=due + datetime.timedelta(minutes=1))
    with pytest.raises(BadRequestError) as refused:
        lifecycle.cancel_job(service.id, job.id)
    assert refused.value.messages == ["Job cannot be cancelled: it is cancelled"]
    assert JobRows.select().where(JobRows.job == job.id).count() == 0


def test_a_started_job_cannot_be_cancelled(service):
    template = create_sample_template(service=service)
    job = make_job(service, template, sms_rows(3))
    assert job.status == PENDING
    lifecycle.start_job(job.id)
    with pytest.raises(BadRequestError) as refused:
        lifecycle.cancel_job(service.id, job.id)
    assert refused.value.messages == ["Job cannot be cancelled: it is in progress"]


@pytest.mark.parametrize("ahead", [datetime.timedelta(days=7, minutes=1), -datetime.timedelta(minutes=1)])
def test_a_job_is_scheduled_up_to_7_days_ahead(service, ahead):
    template = create_sample_template(service=service)
    with pytest.raises(BadRequestError):
        make_job(service, template, sms_rows(1), scheduled_for=utcnow() + ahead)


def test_the_sweep_starts_a_due_job_whose_message_was_lost_and_resumes_a_stalled_one(service):
    template = create_sample_template(service=service)
    now = utcnow()
    lost_start = make_job(service, template, sms_rows(2), now=now - datetime.timedelta(minutes=10))
    stalled = make_job(service, template, sms_rows(1200))
    lifecycle.start_job(stalled.id)
    rows.create_chunk(stalled.id, 0, lambda new: None, lambda: None, now=now - datetime.timedelta(minutes=10))

    assert lifecycle.due_jobs(now, datetime.timedelta(minutes=2)) == [lost_start.id]
    assert [(j.id, j.rows_processed) for j in lifecycle.stalled_jobs(now, datetime.timedelta(minutes=2))] == [
        (stalled.id, 1000)]


def test_a_letter_job_makes_letters_with_their_address_and_postage(service):
    template = create_sample_template(service=service, template_type="letter", body="Dear ((name))")
    data = csv_file(["address line 1", "address line 2", "address line 3", "name"],
                    [["J. Jansen", "Dorpsstraat 1", "1234 AB  Amsterdam", "Jan"],
                     ["Mr Smith", "1 High Street", "France", "John"]])
    job = make_job(service, template, data)
    assert lifecycle.start_job(job.id)
    assert daily_limits.used_today(service.id, ["letter"]) == {"letter": 2}
    rows.create_chunk(job.id, 0, lambda new: None, lambda: None)
    first, second = Notification.select().where(Notification.job_id == job.id).order_by(Notification.job_row_number)
    assert (first.notification_type, first.to, first.body, first.postage) == (
        "letter", "J. Jansen\nDorpsstraat 1\n1234 AB  AMSTERDAM", "Dear Jan", "second")
    assert (second.international, second.postage, second.address["country"]) == (True, "europe", "France")
