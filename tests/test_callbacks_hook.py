"""The status-change hook, its cost, and the callback stage's rules, without a worker."""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import logging
import uuid
from collections.abc import Iterator

import dramatiq
import pytest
from dramatiq.middleware import Middleware

import config
import workers.callbacks as callback_worker
from models import cache
from models.callback_attempt import CallbackAttempt
from models.crypto import encrypt
from models.db import database
from models.service import ServiceCallback
from pipeline.domain import statuses
from pipeline.stages import callbacks, status_changes
from tests.factories import create_notification, create_service
from workers.broker import current_broker


class Recorder(Middleware):
    """Records the delivery-status callbacks the broker takes (no worker runs them here)."""

    def __init__(self) -> None:
        self.sent: list[tuple] = []

    def after_enqueue(self, broker: dramatiq.Broker, message: dramatiq.Message, delay: int | None) -> None:
        if message.actor_name == callback_worker.send_delivery_status.actor_name:
            self.sent.append(tuple(message.args))


@pytest.fixture
def sent() -> Iterator[list[tuple]]:
    recorder = Recorder()
    current_broker().add_middleware(recorder)
    try:
        yield recorder.sent
    finally:
        current_broker().middleware.remove(recorder)


def configure(service, kind="delivery-status", url="https://example.nl/cb"):
    return ServiceCallback.create(service=service, kind=kind, url=url, bearer_token_encrypted=encrypt("token-123456"))


def test_final_changes_of_a_service_with_a_callback_are_enqueued(service, sent):
    configure(service)
    sms = create_notification(service=service, status="created")
    status_changes.transition(sms.id, statuses.SENDING)
    assert sent == []  # not final
    status_changes.transition(sms.id, statuses.DELIVERED)
    assert sent == [(str(sms.id), "delivered")]
    assert status_changes.transition(sms.id, statuses.DELIVERED) is False and len(sent) == 1  # no change, no callback


def test_only_after_the_commit(service, sent):
    configure(service)
    sms = create_notification(service=service, status="sending")
    with database.atomic() as transaction:
        status_changes.transition(sms.id, statuses.DELIVERED)
        assert sent == []
        transaction.rollback()
    assert sent == []
    with database.atomic():
        status_changes.transition(sms.id, statuses.PERMANENT_FAILURE)
        assert sent == []
    assert sent == [(str(sms.id), "permanent-failure")]


def test_not_for_other_services_or_the_other_kind(service, sent):
    configure(create_service())
    configure(service, kind="inbound-sms")
    sms = create_notification(service=service, status="sending")
    status_changes.transition(sms.id, statuses.DELIVERED)
    assert sent == []


def test_no_query_per_status_change_while_no_service_has_a_callback(service, sent, caplog, monkeypatch):
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), cache_ttl_seconds=60))
    cache.clear()
    rows = [create_notification(service=service, status="sending") for _ in range(2)]
    status_changes.transition(rows[0].id, statuses.DELIVERED)  # fills the cache: no callbacks anywhere
    caplog.set_level(logging.DEBUG, logger="peewee")
    caplog.clear()
    status_changes.transition(rows[1].id, statuses.DELIVERED)
    queries = [r.getMessage() for r in caplog.records if r.name == "peewee"]
    assert len(queries) == 1 and queries[0].startswith("('UPDATE")
    cache.clear()


def test_a_listener_registered_twice_is_called_once():
    calls = []

    def listener(notification_id: str, status: str) -> None:
        calls.append(status)

    try:
        status_changes.on_change(listener)
        status_changes.on_change(listener)
        service = create_service()
        status_changes.transition(create_notification(service=service, status="created").id, statuses.SENDING)
        assert calls == ["sending"]
    finally:
        status_changes._listeners.remove(listener)


def test_nothing_is_posted_for_a_purged_notification_or_a_removed_callback(service, monkeypatch):
    monkeypatch.setattr(callbacks, "post", lambda *args: pytest.fail("posted"))
    configure(service)
    callback_worker.send_delivery_status.fn(str(uuid.uuid4()), "delivered")
    ServiceCallback.delete().execute()
    callback_worker.send_delivery_status.fn(str(create_notification(service=service, status="delivered").id),
                                            "delivered")
    assert CallbackAttempt.select().count() == 0


def test_a_redelivered_message_finds_the_callback_delivered(service, monkeypatch):
    monkeypatch.setattr(callbacks, "post", lambda *args: pytest.fail("posted twice"))
    callback = configure(service)
    sms = create_notification(service=service, status="delivered")
    CallbackAttempt.create(service=service, kind=callback.kind, subject_id=sms.id, event="delivered", url=callback.url,
                           attempt=1, status_code=204, duration_ms=5)
    callback_worker.send_delivery_status.fn(str(sms.id), "delivered")
    assert CallbackAttempt.select().count() == 1


def test_letters_report_their_public_status(service):
    letter = create_notification(service=service, notification_type="letter", status="delivered", template_id=None)
    payload = callbacks.delivery_status_payload(letter)
    assert (payload["status"], payload["notification_type"], payload["template_id"]) == ("received", "letter", None)


def test_the_signature_scheme():
    body = b'{"id":"1"}'
    headers = callbacks.signed_headers("token-123456", body, now=1_700_000_000.7)
    digest = hmac.new(b"token-123456", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert headers == {"Authorization": "Bearer token-123456", "Content-Type": "application/json",
                       "X-Notify-Timestamp": "1700000000", "X-Notify-Signature": f"sha256={digest}"}


def test_a_callbacks_id_names_its_event_and_nothing_else():
    delivered = callbacks.callback_id("delivery-status", "3f1c6a9e-0000-4000-8000-000000000001", "delivered")
    assert delivered == callbacks.callback_id("delivery-status", "3f1c6a9e-0000-4000-8000-000000000001", "delivered")
    assert str(uuid.UUID(delivered)) == delivered
    others = {callbacks.callback_id("delivery-status", "3f1c6a9e-0000-4000-8000-000000000001", "permanent-failure"),
              callbacks.callback_id("delivery-status", "3f1c6a9e-0000-4000-8000-000000000002", "delivered"),
              callbacks.callback_id("complaint", "3f1c6a9e-0000-4000-8000-000000000001", "delivered")}
    assert len(others) == 3 and delivered not in others


@pytest.mark.parametrize("outcome, retryable", [
    (callbacks.Outcome(500, None, 1), True),
    (callbacks.Outcome(503, None, 1), True),
    (callbacks.Outcome(429, None, 1), True),
    (callbacks.Outcome(None, "ConnectionError: refused", 1), True),
    (callbacks.Outcome(None, "InvalidURL: bad", 1, transient=False), False),
    (callbacks.Outcome(400, None, 1), False),
    (callbacks.Outcome(404, None, 1), False),
    (callbacks.Outcome(301, None, 1), False),
])
def test_what_is_retried(outcome, retryable):
    assert outcome.retryable is retryable and not outcome.delivered


def test_backoff_doubles_and_honours_retry_after(monkeypatch):
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), callback_min_backoff_ms=1000))
    assert 1000 <= callback_worker._backoff_ms(1, None) <= 2000
    assert 4000 <= callback_worker._backoff_ms(3, None) <= 8000
    assert callback_worker._backoff_ms(1, 30_000) == 30_000
    assert callback_worker._backoff_ms(1, 10**9) == callback_worker.MAX_BACKOFF_MS
