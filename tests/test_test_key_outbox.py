"""Accepted test-key sends go straight into the simulated gateway's outbox; other sends get a queue
message each. Asserted on the real Redis the workers read."""
from __future__ import annotations

import datetime
from concurrent.futures import ThreadPoolExecutor

from config import get_settings
from tests.conftest import running_worker, status_of, wait_for
from tests.factories import auth_headers, create_key, create_sample_template
from workers.broker import current_broker
from workers.receipts import simulated_outbox

broker = current_broker()  # conftest built it through the web app's factory


def _queued(queue: str) -> int:
    """Messages waiting on a Dramatiq queue of ours."""
    return broker.client.hlen(f"{get_settings().queue_namespace}:{queue}.msgs")


def _sms(template, **extra) -> dict:
    return {"phone_number": "0612345678", "template_id": str(template.id), **extra}


def test_test_key_sends_wait_in_the_outbox_for_one_flush_and_reach_delivered(client, service, live_server):
    template = create_sample_template(service=service, body="Hi")
    key = create_key(service=service, key_type="test", name="test")
    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(lambda _: client.post("/v2/notifications/sms", json=_sms(template),
                                                        headers=auth_headers(key)), range(20)))
    ids = [r.get_json()["id"] for r in responses]
    assert {r.status_code for r in responses} == {201}

    outbox = simulated_outbox("sends")
    waiting = [item.decode().strip('"') for item in broker.client.lrange(outbox.pending, 0, -1)]
    assert sorted(waiting) == sorted(ids)
    assert _queued("send-test-key") == 0
    assert _queued("simulated-gateway") == 1  # the flag lets one flush be asked for, not twenty

    with running_worker():
        wait_for(lambda: all(status_of(i) == "delivered" for i in ids))


def test_scheduled_test_key_sends_wait_in_a_delayed_message(client, service):
    template = create_sample_template(service=service, body="Hi")
    key = create_key(service=service, key_type="test", name="test")
    later = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    response = client.post("/v2/notifications/sms", json=_sms(template, scheduled_for=later), headers=auth_headers(key))
    assert response.status_code == 201
    assert simulated_outbox("sends").waiting() == 0
    assert _queued("send-test-key.DQ") == 1


def test_live_sends_get_a_message_each(client, service):
    template = create_sample_template(service=service, body="Hi")
    key = create_key(service=service)
    for _ in range(3):
        assert client.post("/v2/notifications/sms", json=_sms(template), headers=auth_headers(key)).status_code == 201
    assert _queued("send-sms") == 3
    assert simulated_outbox("sends").waiting() == 0
