"""A job's sends through the real pipeline (jobs stage, send workers, the simulator's receipts posted to
the webhook): every row delivered once, and no status change refused on the way, even when the
database is slow to take a send's record, as under the load of a 100,000-row job."""
from __future__ import annotations

import collections
import itertools
import logging
import time

from models.job import FINISHED, Job
from models.notification import Notification
from pipeline.domain import statuses
from pipeline.stages import status_changes
from pipeline.stages.jobs.progress import job_progress
from tests.factories import create_sample_template
from tests.jobs.helpers import make_job, sms_rows, wait_for
from workers import receipts
from workers.jobs import enqueue_start

ROWS = 3000


def test_a_job_whose_sends_are_recorded_slowly_delivers_each_row_once_and_nothing_goes_back(
        service, worker, caplog, monkeypatch):
    caplog.set_level(logging.WARNING)
    # One record in ten waits 0.3 s before its statement: time enough for the simulator's receipts
    # to be posted and applied, were they queued before their send was recorded.
    record = status_changes.transition_each
    calls = itertools.count()

    def slow_record(new_status: str, changes: list) -> list[bool]:
        if new_status == statuses.SENDING and next(calls) % 10 == 0:
            time.sleep(0.3)
        return record(new_status, changes)

    monkeypatch.setattr(status_changes, "transition_each", slow_record)
    posted: collections.Counter[str] = collections.Counter()
    post = receipts.post_simulated_receipts

    def counted_post(batch: list[dict]) -> None:
        posted.update(receipt["reference"] for receipt in batch)
        post(batch)

    monkeypatch.setattr(receipts, "post_simulated_receipts", counted_post)
    job = make_job(service, create_sample_template(service=service, body="Hello ((name))"), sms_rows(ROWS))

    enqueue_start(job.id, None)

    wait_for(lambda: Job.get_by_id(job.id).status == FINISHED, 120)
    wait_for(lambda: job_progress(Job.get_by_id(job.id)).delivered == ROWS, 120)
    assert next(calls) > ROWS // 8 // 10  # records were slowed (sends travel up to 8 to a message)
    refused = [r.getMessage() for r in caplog.records if "refused status change" in r.getMessage()]
    assert refused == [], f"{len(refused)} refused, e.g. {refused[:3]}"
    sent = list(Notification.select(Notification.id, Notification.status, Notification.job_row_number,
                                    Notification.sent_by, Notification.provider_reference)
                .where(Notification.job_id == job.id))
    assert sorted(n.job_row_number for n in sent) == list(range(ROWS))
    assert {(n.status, n.sent_by) for n in sent} == {("delivered", "simulated")}
    # One receipt a row: each was sent once, and recorded with the reference its receipt names.
    assert posted == collections.Counter(str(n.id) for n in sent)
    assert all(n.provider_reference for n in sent)
