"""The follow-up outbox (workers.enqueue.follow_up, table follow_up): a callback is written in its status
change's transaction and commits or rolls back with it; sent after the commit and deleted, a
transaction's rows in one DELETE; kept through a broker outage and sent by the periodic relay once
older than its grace; the relay sends nothing younger."""
from __future__ import annotations

import dataclasses
import datetime
import logging
from collections.abc import Iterator

import dramatiq
import pytest
from dramatiq.brokers.redis import RedisBroker
from dramatiq.middleware import Middleware

import config
from models.crypto import encrypt
from models.db import database, utcnow
from models.follow_up import FollowUp
from models.service import ServiceCallback
from pipeline.domain import statuses
from pipeline.stages import status_changes
from tests.conftest import _free_port, status_of
from tests.factories import create_notification
from workers import callbacks, periodic
from workers.broker import current_broker, use_broker


class Enqueued(Middleware):
    """The delivery-status callbacks the broker takes (no worker runs them here)."""

    def __init__(self) -> None:
        self.args: list[tuple] = []

    def after_enqueue(self, broker: dramatiq.Broker, message: dramatiq.Message, delay: int | None) -> None:
        if message.actor_name == callbacks.send_delivery_status.actor_name:
            self.args.append(tuple(message.args))


@pytest.fixture
def enqueued() -> Iterator[list[tuple]]:
    recorder = Enqueued()
    current_broker().add_middleware(recorder)
    try:
        yield recorder.args
    finally:
        current_broker().middleware.remove(recorder)


@pytest.fixture
def called_back(service):
    ServiceCallback.create(service=service, kind="delivery-status", url="https://example.nl/cb",
                           bearer_token_encrypted=encrypt("token-123456"))
    return service


def waiting() -> list[tuple]:
    return [(row.actor_name, tuple(row.args)) for row in FollowUp.select().order_by(FollowUp.id)]


def test_sent_after_the_commit_and_deleted(called_back, enqueued):
    sms = create_notification(service=called_back, status="sending")
    with database.atomic():
        status_changes.transition(sms.id, statuses.DELIVERED)
        assert waiting() == [("send_delivery_status", (str(sms.id), "delivered"))] and enqueued == []
    assert enqueued == [(str(sms.id), "delivered")] and waiting() == []


def test_a_change_rolled_back_takes_its_follow_up_with_it(called_back, enqueued):
    sms = create_notification(service=called_back, status="sending")
    with pytest.raises(RuntimeError), database.atomic():
        status_changes.transition(sms.id, statuses.DELIVERED)
        raise RuntimeError("the caller's transaction fails")
    assert status_of(sms.id) == "sending" and waiting() == [] and enqueued == []


def test_a_change_outside_a_transaction_commits_with_its_follow_up(called_back, enqueued):
    """A listener that fails after the callback was written: the change does not commit without it."""
    sms = create_notification(service=called_back, status="sending")

    def failing(notification_id: str, new_status: str) -> None:
        raise RuntimeError("a listener after the callbacks' fails")

    status_changes.on_change(failing)
    try:
        with pytest.raises(RuntimeError):
            status_changes.transition(sms.id, statuses.DELIVERED)
    finally:
        status_changes._listeners.remove(failing)
    assert status_of(sms.id) == "sending" and waiting() == [] and enqueued == []
    status_changes.transition(sms.id, statuses.DELIVERED)
    assert enqueued == [(str(sms.id), "delivered")] and waiting() == []


def test_a_transactions_follow_ups_are_deleted_in_one_statement(called_back, enqueued, caplog):
    rows = [create_notification(service=called_back, status="sending") for _ in range(3)]
    caplog.set_level(logging.DEBUG, logger="peewee")
    status_changes.transition_many([row.id for row in rows], statuses.DELIVERED)
    deletes = [r.getMessage() for r in caplog.records if r.name == "peewee" and "DELETE" in r.getMessage()]
    assert len(deletes) == 1 and '"follow_up"' in deletes[0]
    assert sorted(enqueued) == sorted((str(row.id), "delivered") for row in rows) and waiting() == []


def test_kept_through_a_broker_outage_and_sent_by_the_periodic_relay(called_back, enqueued, monkeypatch):
    sms = create_notification(service=called_back, status="sending")
    working = current_broker()
    use_broker(RedisBroker(url=f"redis://127.0.0.1:{_free_port()}/0"))  # nothing listens there: an outage
    try:
        status_changes.transition(sms.id, statuses.PERMANENT_FAILURE)  # committed all the same
    finally:
        use_broker(working)
    assert status_of(sms.id) == "permanent-failure" and enqueued == []
    assert waiting() == [("send_delivery_status", (str(sms.id), "permanent-failure"))]

    periodic.relay_follow_ups.fn()  # within its grace (STUCK_AFTER_SECONDS): its writer may yet send it
    assert enqueued == [] and len(waiting()) == 1

    FollowUp.update(created_at=utcnow() - datetime.timedelta(seconds=config.get_settings().stuck_after_seconds + 1)
                    ).execute()
    periodic.relay_follow_ups.fn()
    assert enqueued == [(str(sms.id), "permanent-failure")] and waiting() == []


def test_the_periodic_relay_sends_every_row_left_however_many(called_back, enqueued, monkeypatch):
    monkeypatch.setattr("workers.enqueue.RELAYED_AT_ONCE", 2)
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), stuck_after_seconds=0))
    rows = [create_notification(service=called_back, status="delivered") for _ in range(5)]
    for row in rows:  # as a writer killed after its commit leaves them
        FollowUp.create(queue_name="callbacks", actor_name="send_delivery_status", args=[str(row.id), "delivered"],
                        created_at=utcnow() - datetime.timedelta(seconds=1))
    periodic.relay_follow_ups.fn()
    assert sorted(enqueued) == sorted((str(row.id), "delivered") for row in rows) and waiting() == []
