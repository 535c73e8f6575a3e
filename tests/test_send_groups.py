"""Live sends recorded together travel in one queue message, and each is still sent exactly once:
one that must wait out an outage, or meets an error, goes on by itself without holding up the rest."""
from __future__ import annotations

import json
import logging

import dramatiq

from config import get_settings
from models.db import utcnow
from models.notification import Notification
from pipeline.infrastructure.throughput.fast import dispatch as fast_dispatch
from pipeline.stages import delivery
from tests.batching_helpers import batcher_of, fast_only, taken_together
from tests.conftest import running_worker, status_of, wait_for
from tests.factories import create_notification, create_sample_template
from tests.faults import make_unreadable
from workers.broker import current_broker
from workers.receipts import simulated_outbox
from workers.sending import (
    GATEWAYS,
    SENDS_PER_MESSAGE,
    deliver_sms,
    deliver_sms_group,
    enqueue_deliveries,
    enqueue_job_deliveries,
)

broker = current_broker()  # conftest built it through the web app's factory


def _queued(queue: str) -> list[dramatiq.Message]:
    namespace = get_settings().queue_namespace
    return [dramatiq.Message.decode(data) for data in broker.client.hvals(f"{namespace}:{queue}.msgs")]


def _created(service, count: int, **fields) -> list[Notification]:
    template = create_sample_template(service=service, body="Hi")
    return [create_notification(service=service, template=template, to=f"+316123456{n:02d}", **fields)
            for n in range(count)]


def test_sends_recorded_together_share_messages_and_each_reaches_the_gateway_once(
        service, live_server, real_providers):
    _, gateway = real_providers
    rows = _created(service, SENDS_PER_MESSAGE + 2)
    enqueue_deliveries(rows)
    messages = _queued("send-sms")
    assert sorted(len(m.args[0]) if isinstance(m.args[0], list) else 1 for m in messages) == [2, SENDS_PER_MESSAGE]
    assert sorted(i for m in messages for i in m.args[0]) == sorted(str(row.id) for row in rows)
    with running_worker():
        gateway.wait_for_messages(len(rows))
        wait_for(lambda: all(status_of(row.id) == "sending" for row in rows))
    assert sorted(m.payload["to"] for m in gateway.messages) == sorted(row.normalised_to for row in rows)
    assert gateway.attempts == len(rows)


def test_a_job_chunks_sends_travel_together_on_the_jobs_queue(service, live_server, real_providers):
    _, gateway = real_providers
    rows = _created(service, SENDS_PER_MESSAGE + 1)
    enqueue_job_deliveries(rows)
    assert _queued("send-sms") == []
    messages = _queued("send-job-sms")
    assert sorted((m.actor_name, len(m.args[0]) if m.actor_name.endswith("_group") else 1) for m in messages) == [
        ("deliver_job_sms", 1), ("deliver_job_sms_group", SENDS_PER_MESSAGE)]
    with running_worker():
        gateway.wait_for_messages(len(rows))
        wait_for(lambda: all(status_of(row.id) == "sending" for row in rows))
    assert gateway.attempts == len(rows)


def test_a_lone_send_keeps_a_message_of_its_own(service, real_providers):
    [row] = _created(service, 1)
    enqueue_deliveries([row])
    [message] = _queued("send-sms")
    assert message.actor_name == "deliver_sms" and list(message.args) == [str(row.id)]


def test_a_send_of_a_group_that_must_wait_out_an_outage_waits_alone(service, live_server, real_providers, caplog):
    _, gateway = real_providers
    gateway.fail_next(1, status=503)  # the group's first send finds the gateway away for a moment
    rows = _created(service, 3)
    enqueue_deliveries(rows)
    with caplog.at_level(logging.WARNING, logger="pipeline.stages.delivery"), running_worker():
        gateway.wait_for_messages(3)
        wait_for(lambda: all(status_of(row.id) == "sending" for row in rows))
    assert gateway.attempts == 4 and len(gateway.messages) == 3
    assert [r.getMessage().split(" not sent,")[0] for r in caplog.records if " not sent, " in r.getMessage()] == [
        str(rows[0].id)]


def test_an_error_in_a_group_leaves_the_sends_after_it_to_messages_of_their_own(
        service, live_server, real_providers, caplog):
    _, gateway = real_providers
    first, last = _created(service, 2)
    with caplog.at_level(logging.WARNING, logger="workers.sending"):
        broker.get_actor("deliver_sms_group").send([str(first.id), "not a notification id", str(last.id)])
        with running_worker():
            gateway.wait_for_messages(2)
            wait_for(lambda: status_of(first.id) == "sending" and status_of(last.id) == "sending")
    assert gateway.attempts == 2 and sorted(m.payload["to"] for m in gateway.messages) == sorted(
        [first.normalised_to, last.normalised_to])
    assert any(r.getMessage().startswith("sending not a notification id failed") and "2 sends of its group" in
               r.getMessage() for r in caplog.records)


def _receipts_queued() -> list[dict]:
    outbox = simulated_outbox("receipts")
    return [json.loads(item) for item in outbox.client.lrange(outbox.pending, 0, -1)]


def test_a_group_bound_for_the_simulator_goes_through_each_step_together_and_each_send_once(
        service, live_server):
    rows = _created(service, SENDS_PER_MESSAGE)
    claimed, done, unreadable = _created(service, 3)
    Notification.update(dispatch_started_at=utcnow()).where(Notification.id == claimed.id).execute()
    Notification.update(status="delivered").where(Notification.id == done.id).execute()
    make_unreadable(unreadable)
    ids = [str(row.id) for row in (*rows, claimed, done, unreadable)]
    before = _receipts_queued()

    fast_only()
    taken: list[int] = []
    original = fast_dispatch._read_awaiting.process
    fast_dispatch._read_awaiting.process = lambda asked: taken.append(len(asked)) or original(asked)
    try:
        deliver_sms_group(ids)
        deliver_sms_group(ids)  # the group's message delivered twice: nothing is sent again
    finally:
        fast_dispatch._read_awaiting.process = original

    assert taken == [len(ids), len(ids)]  # one read of the whole group each time
    receipts = _receipts_queued()[len(before):]
    assert sorted(r["reference"] for r in receipts) == sorted(str(row.id) for row in rows)
    for row in rows:
        stored = Notification.get_by_id(row.id)
        assert (stored.status, stored.sent_by, stored.billable_units) == ("sending", "simulated", 1)
    assert [Notification.select(Notification.status).where(Notification.id == n.id).scalar()
            for n in (claimed, done, unreadable)] == ["created", "delivered", "technical-failure"]
    with running_worker():
        wait_for(lambda: all(status_of(row.id) == "delivered" for row in rows))


def test_an_error_in_a_group_bound_for_the_simulator_leaves_its_sends_to_messages_of_their_own(
        service, live_server, caplog):
    first, last = _created(service, 2)
    with caplog.at_level(logging.WARNING, logger="workers.sending"):
        broker.get_actor("deliver_sms_group").send([str(first.id), "not a notification id", str(last.id)])
        with running_worker():
            wait_for(lambda: status_of(first.id) == "delivered" and status_of(last.id) == "delivered")
    assert any(r.getMessage().startswith(f"sending {first.id} together failed") and "3 sends of its group" in
               r.getMessage() for r in caplog.records)


def test_the_simulators_sends_of_several_threads_share_one_round_and_a_broken_group_fails_only_itself(
        service, live_server):
    """Messages that a worker's threads hold at the same moment (groups and lone sends) are read,
    recorded and their receipts queued in one round; a group naming no notification breaks that
    round, and then only its own thread sees the error, the others' sends going on."""
    first, second, third, plug = _created(service, 4)
    rounds: list[int] = []
    batcher = batcher_of(delivery._simulated_together)
    original = batcher.process
    batcher.process = lambda groups: rounds.append(len(groups)) or original(groups)
    errors: list[BaseException] = []

    def broken() -> None:
        try:
            deliver_sms_group([str(third.id), "not a notification id"])
        except ValueError as exc:
            errors.append(exc)

    try:
        taken_together(batcher, ((str(plug.id),), GATEWAYS), [
            lambda: deliver_sms_group([str(first.id), str(second.id)]), broken])
    finally:
        batcher.process = original

    assert rounds == [1, 2]  # the plug's, then both groups' together (which broke, and went again group by group)
    assert errors == []  # the broken group's error was its own thread's, which handed its sends to lone messages
    assert {status_of(n.id) for n in (first, second, plug)} == {"sending"}
    assert status_of(third.id) == "created"  # its group went on to messages of one send each
    queued = {tuple(message.args) for message in _queued("send-sms.DQ")  # after the backoff a retry waits
              if message.actor_name == deliver_sms.actor_name}
    assert {(str(third.id),), ("not a notification id",)} <= queued
