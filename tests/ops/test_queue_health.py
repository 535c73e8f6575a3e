"""Tried as a new user would: workers paused while sending, then resumed."""
from __future__ import annotations

import dataclasses
import time

import pytest

import config
from tests.conftest import running_worker, status_of, wait_for
from tests.factories import auth_headers, create_key, create_sample_template
from workers import dead_letters, queue_stats


@pytest.fixture
def strict_status():
    """/_status thresholds of a second, so a test need not wait a minute."""
    before = config.get_settings()
    config._settings = dataclasses.replace(before, status_worker_absent_seconds=1, status_queue_age_seconds=600)
    yield config._settings
    config._settings = before


def _send_sms(client, key, template, count):
    ids = []
    for _ in range(count):
        response = client.post("/v2/notifications/sms", headers=auth_headers(key),
                               json={"phone_number": "0612345678", "template_id": str(template.id)})
        assert response.status_code == 201, response.get_json()
        ids.append(response.get_json()["id"])
    return ids


def _queue(name):
    return next(q for q in queue_stats.queue_stats() if q.name == name)


def test_paused_workers_turn_status_503_naming_the_queue_and_resuming_drains_it(client, service, live_server,
                                                                                 strict_status):
    template = create_sample_template(service=service, body="Hello")
    ids = _send_sms(client, create_key(service=service), template, 25)

    queue = _queue("send-sms")
    assert (queue.ready, queue.live_workers, queue.dead) == (25, 0, 0)
    if dead_letters.supported():  # Redis: message timestamps are readable; RabbitMQ only counts
        assert queue.oldest_age_seconds is not None and queue.oldest_age_seconds >= 0
    time.sleep(1.2)  # longer than the (test) absence threshold
    response = client.get("/_status")
    assert response.status_code == 503
    body = response.get_json()
    assert body["status"] == "unavailable" and body["database"] == "ok" and body["redis"] == "ok"
    assert body["workers"].startswith("no live worker on send-sms (no live worker for ")
    assert client.get("/_live").status_code == 200  # the load balancer's check stays cheap and green

    with running_worker():
        workers = wait_for(lambda: [w for w in queue_stats.worker_processes() if w.alive])
        assert "send-sms" in workers[0].queues and workers[0].threads == 4 and workers[0].pid > 0
        wait_for(lambda: all(status_of(i) == "delivered" for i in ids), timeout=60)
        assert client.get("/_status").status_code == 200
        queue = wait_for(lambda: (q := _queue("send-sms")).done >= 25 and q)
        assert (queue.ready, queue.failed, queue.live_workers) == (0, 0, 1)
        assert queue_stats.stage_percentiles()["deliver_sms"]["count"] >= 25
    assert not [w for w in queue_stats.worker_processes() if w.alive]  # a stopped worker says so


@pytest.mark.skipif(not dead_letters.supported(), reason="the age of a message is read from Redis")
def test_a_queue_whose_oldest_message_is_too_old_fails_status(client, service, strict_status):
    config._settings = dataclasses.replace(strict_status, status_worker_absent_seconds=600, status_queue_age_seconds=1)
    _send_sms(client, create_key(service=service), create_sample_template(service=service, body="Hi"), 1)
    time.sleep(1.2)
    body = client.get("/_status").get_json()
    assert body["queues"].startswith("not draining: send-sms (oldest message ")
    assert body["workers"] == "ok"


def test_stuck_notifications_are_listed_oldest_first(service):
    import datetime

    from tests.factories import create_notification

    old = datetime.datetime.utcnow() - datetime.timedelta(hours=2)
    stuck_sending = create_notification(service=service, status="sending", created_at=old)
    stuck_created = create_notification(service=service, status="created",
                                        created_at=old + datetime.timedelta(minutes=1))
    create_notification(service=service, status="created")  # fresh: on its way
    create_notification(service=service, status="delivered", created_at=old)
    assert [str(n.id) for n in queue_stats.stuck_notifications()] == [str(stuck_sending.id), str(stuck_created.id)]
