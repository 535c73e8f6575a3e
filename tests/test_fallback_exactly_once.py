"""Each step of a fallback chain is sent exactly once, whatever happens to the fallbacks queue's messages
or its workers: a worker killed in the middle of the chains, and messages delivered again."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from models.notification import Notification
from models.notification_fallback import NotificationFallback
from pipeline.stages import status_changes
from tests.conftest import running_worker, wait_for
from tests.factories import create_notification, create_sample_template, create_service
from workers.broker import current_broker
from workers.fallback import send_fallback

ROOT = Path(__file__).resolve().parent.parent
CHAINS = 150


def _stepped(ids: list[str]) -> int:
    return NotificationFallback.select().where(NotificationFallback.notification.in_(ids)
                                               & NotificationFallback.sent_as.is_null(False)).count()


def test_a_worker_killed_in_the_middle_of_the_chains_sends_each_step_once(live_server):
    service = create_service()
    template = create_sample_template(service=service, template_type="email")
    alternative = {"type": "email", "template_id": str(template.id), "email_address": "anna@example.nl",
                   "personalisation": {"name": "Anna"}}
    ids = [str(create_notification(service=service, status="sending", fallback=[alternative]).id)
           for _ in range(CHAINS)]
    process = subprocess.Popen(
        [sys.executable, "-m", "dramatiq", "workers:wire", "--processes", "1", "--threads", "1",
         "--queues", "fallbacks"],
        cwd=ROOT, env=dict(os.environ), start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for notification_id in ids:  # each failure's listener queues its next step
            status_changes.transition(notification_id, "permanent-failure")
        wait_for(lambda: _stepped(ids) >= 1, timeout=30)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert _stepped(ids) < CHAINS  # killed in the middle

    with running_worker():
        wait_for(lambda: _stepped(ids) == CHAINS, timeout=60)
        for notification_id in ids[:20]:  # messages delivered again find the step taken
            send_fallback.send(notification_id)
        current_broker().join("fallbacks", timeout=20_000)

    steps = list(NotificationFallback.select().where(NotificationFallback.fallback_for.in_(ids)))
    assert len(steps) == CHAINS and {str(s.fallback_for) for s in steps} == set(ids)
    assert Notification.select().where(Notification.id.in_([s.notification_id for s in steps])).count() == CHAINS
    sent_as = {str(link.notification_id): str(link.sent_as)
               for link in NotificationFallback.select().where(NotificationFallback.notification.in_(ids))}
    assert {str(s.fallback_for): str(s.notification_id) for s in steps} == sent_as
