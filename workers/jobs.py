"""Actors of the jobs queue: start a bulk job when it is due, then turn its rows into notifications a
chunk at a time. Their own queue (and worker process, see the Procfile), so a big job never holds up
the API's sends; chunks follow one another, so one job keeps one worker thread busy at most. The rows'
sends go to queues of their own too (send-job-sms, send-job-email: workers/sending.py)."""
from __future__ import annotations

import datetime

from config import get_settings
from models.db import utcnow
from models.notification import Notification
from pipeline.stages.jobs import lifecycle
from pipeline.stages.jobs.rows import CHUNK_ROWS, create_chunk
from workers.actors import actor
from workers.enqueue import enqueue_after_commit, enqueued_together
from workers.letters import enqueue_letter_pdf
from workers.sending import delay_until, enqueue_job_deliveries

QUEUE = "jobs"


@actor(queue_name=QUEUE, max_retries=10)
def start_job(job_id: str) -> None:
    if lifecycle.start_job(job_id):
        enqueue_after_commit(create_job_rows, job_id, 0)


@actor(queue_name=QUEUE, max_retries=10)
def create_job_rows(job_id: str, chunk: int) -> None:
    def enqueue(new: list[Notification]) -> None:
        enqueue_letter_pdf([n for n in new if n.notification_type == "letter"])
        enqueue_job_deliveries([n for n in new if n.notification_type != "letter"])

    with enqueued_together():  # the chunk's deliveries go to Redis after its commit
        create_chunk(job_id, chunk, enqueue, lambda: enqueue_after_commit(create_job_rows, job_id, chunk + 1))


def enqueue_start(job_id: object, scheduled_for: datetime.datetime | None) -> None:
    """Start the job once the current transaction commits: at once, or when it is due (the delayed
    message lives in Redis, so it survives restarts; the sweep below starts any whose message was lost)."""
    enqueue_after_commit(start_job, str(job_id), delay_ms=delay_until(scheduled_for))


@actor(queue_name="periodic", max_retries=0)
def sweep_jobs() -> None:
    """Start due jobs whose start message was lost; resume jobs whose chunk message was lost."""
    now, after = utcnow(), datetime.timedelta(seconds=get_settings().stuck_after_seconds)
    for job_id in lifecycle.due_jobs(now, after):
        start_job.send(str(job_id))
    for job in lifecycle.stalled_jobs(now, after):
        create_job_rows.send(str(job.id), job.rows_processed // CHUNK_ROWS)
