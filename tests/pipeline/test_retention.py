"""The retention purge: past-retention rows hidden, then deleted in batches; counts survive."""
from __future__ import annotations

import datetime

import pytest

from models.callback_attempt import CallbackAttempt
from models.daily_rollup import DailyStatusCount
from models.db import utcnow
from models.notification import Notification, ReceivedText
from pipeline.infrastructure.storage import letter_pdf_key, letter_storage
from pipeline.stages import retention
from tests.conftest import running_worker, wait_for
from tests.factories import auth_headers, create_key, create_notification, create_service


def days_ago(days: float) -> datetime.datetime:
    return utcnow() - datetime.timedelta(days=days)


def counts() -> dict[tuple, int]:
    """The purge's tally in the daily store."""
    return {(str(c.service_id), c.day, c.notification_type, c.key_type, c.status): c.count
            for c in DailyStatusCount.select().where(DailyStatusCount.purged)}


@pytest.fixture
def service():
    return create_service(email_retention_days=30)


def test_hidden_by_the_read_then_deleted_and_counted(client, service):
    key = create_key(service=service)
    old = create_notification(service=service, status="delivered", created_at=days_ago(8))
    fresh = create_notification(service=service, status="delivered", created_at=days_ago(6))
    assert client.get(f"/v2/notifications/{old.id}", headers=auth_headers(key)).status_code == 404
    assert client.get(f"/v2/notifications/{fresh.id}", headers=auth_headers(key)).status_code == 200

    purged = retention.purge_expired()
    assert purged.notifications == 1
    assert [n.id for n in Notification.select()] == [fresh.id]
    assert counts() == {(str(service.id), old.created_at.date(), "sms", "live", "delivered"): 1}


def test_retention_per_channel(service):
    kept_email = create_notification(service=service, notification_type="email", created_at=days_ago(10))
    create_notification(service=service, notification_type="email", created_at=days_ago(31))
    create_notification(service=service, notification_type="sms", created_at=days_ago(10))
    kept_sms = create_notification(service=service, notification_type="sms", created_at=days_ago(6.9))
    assert retention.purge_notifications().notifications == 2
    assert {n.id for n in Notification.select()} == {kept_email.id, kept_sms.id}


def test_purged_letters_lose_their_pdf(service):
    storage = letter_storage()
    old = create_notification(service=service, notification_type="letter", status="delivered",
                              created_at=days_ago(8))
    fresh = create_notification(service=service, notification_type="letter", created_at=days_ago(1))
    for letter in (old, fresh):
        storage.put(letter_pdf_key(letter.id), b"%PDF-1.4 letter")
    storage.put(f"quarantine/{letter_pdf_key(old.id)}", b"%PDF-1.4 infected")
    assert retention.purge_notifications().letter_pdfs == 1
    assert not storage.exists(letter_pdf_key(old.id))
    assert not storage.exists(f"quarantine/{letter_pdf_key(old.id)}")
    assert storage.exists(letter_pdf_key(fresh.id))


def test_batches_and_counts_that_add_up_across_runs(service, monkeypatch):
    batches = []
    original = retention._purge_notification_batch
    monkeypatch.setattr(retention, "_purge_notification_batch",
                        lambda rows, *args: batches.append(len(rows)) or original(rows, *args))
    day = days_ago(9).replace(hour=12)
    for n in range(5):
        create_notification(service=service, status="delivered", created_at=day + datetime.timedelta(minutes=n))
    create_notification(service=service, status="permanent-failure", key_type="test", created_at=day)
    assert retention.purge_notifications(batch_size=2).notifications == 6
    assert sorted(batches) == [1, 1, 2, 2]  # live: 2, 2, 1; test: 1
    assert Notification.select().count() == 0

    create_notification(service=service, status="delivered", created_at=day)  # a late one of the same day
    retention.purge_notifications(batch_size=2)
    assert retention.purge_notifications(batch_size=2).notifications == 0  # a rerun adds nothing
    assert counts() == {
        (str(service.id), day.date(), "sms", "live", "delivered"): 6,
        (str(service.id), day.date(), "sms", "test", "permanent-failure"): 1,
    }


def test_counts_by_utc_day_type_and_service(service):
    other = create_service()
    late = days_ago(9).replace(hour=23, minute=59)
    create_notification(service=service, status="delivered", created_at=late)
    create_notification(service=service, status="delivered", created_at=late + datetime.timedelta(minutes=2))
    create_notification(service=other, notification_type="letter", status="cancelled", created_at=late)
    retention.purge_notifications()
    assert counts() == {
        (str(service.id), late.date(), "sms", "live", "delivered"): 1,
        (str(service.id), late.date() + datetime.timedelta(days=1), "sms", "live", "delivered"): 1,
        (str(other.id), late.date(), "letter", "live", "cancelled"): 1,
    }


def test_a_batch_taken_by_a_concurrent_purge_is_not_counted_twice(service):
    rows = [create_notification(service=service, created_at=days_ago(8)) for _ in range(2)]
    Notification.delete().where(Notification.id == rows[0].id).execute()  # the other purge got there first
    purged = retention.Purged()
    assert retention._purge_notification_batch(rows, letter_storage(), purged) is False
    assert Notification.select().count() == 1 and DailyStatusCount.select().count() == 0
    assert retention.purge_notifications().notifications == 1 and sum(counts().values()) == 1


def test_received_texts_and_callback_attempts_are_kept_seven_days(service):
    def text(days):
        return ReceivedText.create(service=service, notify_number="+3197010000001", user_number="+31612345678",
                                   content="Hi", created_at=days_ago(days))

    def attempt(days):
        return CallbackAttempt.create(service=service, kind="inbound-sms", subject_id=text(1).id, event="received",
                                      url="https://x.nl", attempt=1, status_code=200, duration_ms=3,
                                      attempted_at=days_ago(days))

    text(8), text(30)
    kept_text = text(6)
    attempt(7.1)
    kept_attempt = attempt(6.9)
    purged = retention.purge_expired(batch_size=1)
    assert (purged.received_texts, purged.callback_attempts) == (2, 1)
    assert kept_text.id in {t.id for t in ReceivedText.select()} and ReceivedText.select().count() == 3
    assert [a.id for a in CallbackAttempt.select()] == [kept_attempt.id]


def test_the_nightly_job_runs_on_a_worker(service):
    from workers.periodic import SCHEDULE
    from workers.retention import purge_expired

    assert ("purge-expired", 24 * 3600, purge_expired) in SCHEDULE
    create_notification(service=service, created_at=days_ago(8))
    with running_worker():
        purge_expired.send()
        wait_for(lambda: Notification.select().count() == 0)
    assert sum(counts().values()) == 1
