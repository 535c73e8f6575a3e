"""A job's stages run on their own queue, worked by their own Procfile process: the send workers
consume every other queue, so a big job never takes their threads."""
from __future__ import annotations

from pathlib import Path

from workers.jobs import create_job_rows, start_job, sweep_jobs
from workers.periodic import SCHEDULE
from workers.sending import GROUP_OF, deliver_email, deliver_job_email, deliver_job_sms, deliver_sms
from workers.supervise import every_queue_but

PROCFILE = Path(__file__).resolve().parents[2] / "Procfile"


def test_the_job_stages_are_on_the_jobs_queue_and_the_sweep_is_scheduled():
    assert start_job.queue_name == create_job_rows.queue_name == "jobs"
    assert ("sweep-jobs", 60, sweep_jobs) in SCHEDULE


def test_the_sends_of_jobs_have_queues_of_their_own_and_give_way_to_the_apis():
    assert (deliver_job_sms.queue_name, deliver_job_email.queue_name) == ("send-job-sms", "send-job-email")
    assert deliver_job_sms.priority > deliver_sms.priority and deliver_job_email.priority > deliver_email.priority
    # Sends that travel together (workers/sending.py) keep their queue and priority.
    assert all((group.queue_name, group.priority) == (one.queue_name, one.priority) for one, group in GROUP_OF.items())


def test_the_send_workers_consume_every_queue_but_jobs():
    queues = every_queue_but(["jobs"])
    assert "jobs" not in queues
    assert {"send-sms", "send-email", "send-job-sms", "send-job-email", "create-letter-pdf", "periodic"} <= set(queues)


def test_the_procfile_gives_jobs_a_process_of_their_own():
    lines = dict(line.split(": ", 1) for line in PROCFILE.read_text().splitlines() if line.strip())
    assert lines["worker"].endswith("--except-queues jobs")
    assert lines["jobs"].startswith("python -m workers.supervise") and lines["jobs"].endswith("--queues jobs")
