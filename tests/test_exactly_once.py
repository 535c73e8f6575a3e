"""A provider is called at most once per notification, whatever happens to queue messages or workers."""
from __future__ import annotations

import datetime
import os
import signal
import subprocess
import sys
from pathlib import Path

from notifications_python_client.notifications import NotificationsAPIClient

from models.notification import Notification
from tests.conftest import running_worker, status_of, wait_for
from tests.factories import create_key, create_sample_template, create_service
from workers.broker import current_broker
from workers.periodic import sweep_stuck_notifications
from workers.sending import deliver_sms

broker = current_broker()  # conftest built it through the web app's factory

ROOT = Path(__file__).resolve().parent.parent


def _send(live_server):
    service = create_service()
    template = create_sample_template(service=service, body="Hi")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    return api.send_sms_notification("0612345678", str(template.id))["id"]


def test_duplicated_messages_make_one_provider_call(live_server, real_providers, worker):
    _, gateway = real_providers
    notification_id = _send(live_server)
    for _ in range(5):
        deliver_sms.send(notification_id)
    wait_for(lambda: status_of(notification_id) == "sending")
    broker.join("send-sms", timeout=10_000)
    assert gateway.attempts == 1 and len(gateway.messages) == 1


def _pending_messages(queue: str) -> int:
    return broker.client.hlen(f"{broker.namespace}:{queue}.msgs")


def test_worker_killed_during_dispatch_never_sends_twice(live_server, real_providers):
    _, gateway = real_providers
    gateway.stall_next(1, 15)  # the provider call hangs: the worker is killed inside it
    notification_id = _send(live_server)
    env = dict(os.environ, SMS_GATEWAY_URL=gateway.url, SMS_GATEWAY_TOKEN="gateway-token")
    process = subprocess.Popen(
        [sys.executable, "-m", "dramatiq", "workers:wire", "--processes", "1", "--threads", "1",
         "--queues", "send-sms"],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: gateway.attempts == 1, timeout=30)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert _pending_messages("send-sms") == 1  # unacknowledged: the broker will hand it out again

    with running_worker():
        # The dead worker's message comes back after the heartbeat timeout and finds the claim.
        wait_for(lambda: _pending_messages("send-sms") == 0, timeout=30)
    stored = Notification.get_by_id(notification_id)
    assert stored.status == "created" and stored.dispatch_started_at is not None
    assert gateway.attempts == 1

    # The sweep fails an abandoned claim instead of sending again.
    Notification.update(dispatch_started_at=stored.dispatch_started_at - datetime.timedelta(hours=1)).where(
        Notification.id == notification_id).execute()
    sweep_stuck_notifications.fn()
    assert status_of(notification_id) == "technical-failure"
    assert gateway.attempts == 1


def test_a_notification_whose_message_was_lost_is_sent_by_the_sweep(live_server, real_providers):
    _, gateway = real_providers
    notification_id = _send(live_server)
    broker.flush("send-sms")  # the message is lost (say, Redis restarted without persistence)
    stored = Notification.get_by_id(notification_id)
    Notification.update(created_at=stored.created_at - datetime.timedelta(minutes=5)).where(
        Notification.id == notification_id).execute()
    sweep_stuck_notifications.fn()
    with running_worker():
        wait_for(lambda: status_of(notification_id) == "sending")
    assert gateway.attempts == 1


def test_duplicated_messages_for_a_test_key_queue_one_simulated_receipt(service):
    from tests.factories import create_notification
    from workers.receipts import simulated_outbox
    from workers.sending import deliver

    notification = create_notification(service=service, key_type="test")
    outbox = simulated_outbox("receipts")
    before = outbox.client.llen(outbox.pending)
    for _ in range(3):
        deliver(str(notification.id))

    assert outbox.client.llen(outbox.pending) - before == 1
    stored = Notification.get_by_id(notification.id)
    assert stored.status == "sending" and stored.sent_by == "simulated" and stored.dispatch_started_at is not None


def test_test_key_sends_move_a_batch_at_a_time_and_a_duplicate_gets_one_receipt(service, live_server):
    from pipeline.stages.dispatch import send_simulated
    from tests.factories import create_notification

    batch = [create_notification(service=service, key_type="test", fragment_count=2) for _ in range(3)]
    ids = [str(n.id) for n in batch] + [str(batch[0].id)]  # a duplicated message

    receipts, one_by_one = send_simulated(ids)
    again, _ = send_simulated(ids[:1])  # a flush retried after a crash: the receipt comes again

    assert sorted(r["reference"] for r in receipts) == sorted(ids[:3]) and one_by_one == []
    first = next(r for r in receipts if r["reference"] == ids[0])
    assert [(r["id"], r["reference"], r["status"]) for r in again] == [(first["id"], ids[0], "delivered")]
    for notification in batch:
        stored = Notification.get_by_id(notification.id)
        assert (stored.status, stored.sent_by, stored.billable_units) == ("sending", "simulated", 2)
        assert stored.sent_at is not None and stored.dispatch_started_at is not None


def test_test_key_sends_the_batch_cannot_take_go_one_by_one(service):
    from pipeline.stages.dispatch import send_simulated
    from tests.factories import create_notification

    international = create_notification(service=service, key_type="test", international=True, fragment_count=1,
                                        to="+12025550123")
    from_before_counts = create_notification(service=service, key_type="test", body="Hello there")
    receipts, one_by_one = send_simulated([str(international.id), str(from_before_counts.id)])

    assert receipts == [] and sorted(one_by_one) == sorted([str(international.id), str(from_before_counts.id)])


def test_test_key_sends_the_batch_cannot_take_still_reach_delivered(service, live_server, worker):
    from tests.factories import create_notification
    from workers.sending import deliver_simulated

    international = create_notification(service=service, key_type="test", international=True, fragment_count=1,
                                        to="+12025550123")
    from_before_counts = create_notification(service=service, key_type="test", body="Hello there")
    for notification in (international, from_before_counts):
        deliver_simulated.send(str(notification.id))

    wait_for(lambda: status_of(international.id) == status_of(from_before_counts.id) == "delivered")
    assert Notification.get_by_id(from_before_counts.id).billable_units == 1
