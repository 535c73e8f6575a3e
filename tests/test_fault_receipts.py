"""Receipts in any order, and a gateway that fails or hangs: every accepted text is delivered once.

Live-key texts go through the official Python client, a real worker and a real HTTP gateway that
posts its receipts to our webhook the way real gateways do.
"""
from __future__ import annotations

import dataclasses
import datetime

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

import config
from models.db import utcnow
from models.held_receipt import HeldReceipt
from models.notification import Notification
from pipeline.stages import dispatch
from pipeline.stages.receipts import apply_receipts, sweep_held_receipts
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_notification, create_sample_template, create_service
from tests.faults import assert_each_sent_once, make_unreadable, send_texts, statuses_of, wait_until_final
from tests.provider_gateways import provider_gateways
from workers.periodic import sweep_stuck_notifications, time_out_sending


@pytest.fixture
def texts(live_server):
    """(client with a live key, template id) of a fresh service."""
    service = create_service()
    template = create_sample_template(service=service, body="Your code is 1234")
    return NotificationsAPIClient(create_key(service=service), base_url=live_server), str(template.id)


def _settings(**changes: object) -> None:
    config._settings = dataclasses.replace(config.get_settings(), **changes)  # real_providers restores it


# The JSON gateway alone, and every type at once (texts spread over them by the same priority).
@pytest.mark.parametrize("kinds", [["json"], ["spryng", "cm", "twilio", "json"]], ids="+".join)
def test_receipts_that_overtake_the_answer_to_the_send_all_land(texts, kinds, worker):
    with provider_gateways(kinds) as fakes:
        for fake in fakes:
            fake.report(config.get_settings().provider_webhook_token, before_answer=True)

        ids, refused = send_texts(*texts, 40)

        assert refused == []
        assert set(wait_until_final(ids, timeout=60).values()) == {"delivered"}
        assert_each_sent_once(fakes, ids)
        assert {row.provider_reference for row in Notification.select()} == {m.id for f in fakes for m in f.messages}


# The faults are at the first gateway, which takes every text first; what it refuses goes to the others.
@pytest.mark.parametrize("kinds", [["json"], ["spryng", "twilio", "cm"]], ids="+".join)
def test_a_gateway_that_fails_and_hangs_gets_each_text_once(texts, kinds, worker):
    # The circuit breaker must not take it out of rotation for these few failures, or the tests'
    # short retries (3 in 200 ms) would run out while it is out.
    with provider_gateways(kinds, priorities=[10] + [0] * (len(kinds) - 1), sms_gateway_timeout_seconds=0.5,
                           sms_gateway_failure_threshold=1000) as fakes:
        for fake in fakes:
            fake.report(config.get_settings().provider_webhook_token)
        first = fakes[0]
        first.fail_next(3, 500)
        first.fail_next(2, 429)
        first.hang_next(5, 2.0)  # takes the text, answers after our timeout: the outcome is unknown

        ids, refused = send_texts(*texts, 40)

        assert refused == []
        assert set(wait_until_final(ids, timeout=60).values()) == {"delivered"}
        assert_each_sent_once(fakes, ids)
        # The 5 refused were sent again (to another gateway when there is one), the 5 that hung were not.
        # A 429 also holds the first gateway off for its Retry-After, and a text routed meanwhile goes to
        # another gateway: at least the 5 refused do.
        assert sum(fake.attempts for fake in fakes) == 45
        if len(fakes) > 1:
            assert 5 <= sum(len(fake.messages) for fake in fakes[1:]) <= 15


def test_an_unknown_outcome_is_sent_again_only_to_a_gateway_that_drops_repeats(texts, real_providers, worker):
    _, gateway = real_providers
    _settings(sms_gateway_timeout_seconds=0.5, sms_gateway_deduplicates=True)
    gateway.hang_next(1, 2.0)

    [notification_id], _ = send_texts(*texts, 1)

    wait_for(lambda: status_of(notification_id) == "sending", timeout=30)
    assert gateway.references()[notification_id] == 2  # the gateway drops the repeat; we relied on it


def test_a_receipt_naming_only_the_gateway_s_id_waits_for_the_answer(service):
    notification = create_notification(service=service)
    assert dispatch.claim(notification)

    apply_receipts("http-gateway", [{"id": "gw-41", "status": "delivered"}])
    assert status_of(notification.id) == "created" and HeldReceipt.select().count() == 1

    dispatch.record_sent(notification, dispatch.Dispatched(provider="http-gateway", reference="gw-41"))
    assert status_of(notification.id) == "delivered" and HeldReceipt.select().count() == 0


def test_a_receipt_held_for_a_message_never_known_is_dropped_in_time(service):
    apply_receipts("http-gateway", [{"id": "gw-unknown", "status": "delivered"}])
    assert sweep_held_receipts() == (0, 0)

    HeldReceipt.update(received_at=utcnow() - datetime.timedelta(hours=2)).execute()
    assert sweep_held_receipts() == (0, 1)
    assert HeldReceipt.select().count() == 0


def test_the_sweep_applies_a_held_receipt_once_its_message_is_known(service):
    notification = create_notification(service=service, status="sending")
    apply_receipts("http-gateway", [{"id": "gw-42", "status": "undeliverable"}])
    Notification.update(provider_reference="gw-42").where(Notification.id == notification.id).execute()

    assert sweep_held_receipts() == (1, 0)
    assert status_of(notification.id) == "permanent-failure"


def test_a_claim_with_an_unknown_outcome_fails_only_when_no_receipt_came_in_time(service):
    waiting = create_notification(service=service, dispatch_started_at=utcnow()
                                  - datetime.timedelta(minutes=15))
    sweep_stuck_notifications.fn()
    assert status_of(waiting.id) == "created"  # the old 10-minute sweep would have failed it here

    apply_receipts("http-gateway", [{"id": "gw-43", "reference": str(waiting.id), "status": "delivered"}])
    stored = Notification.get_by_id(waiting.id)
    assert (stored.status, stored.provider_reference, stored.sent_by) == ("delivered", "gw-43", "http-gateway")

    overdue = datetime.timedelta(seconds=config.get_settings().outcome_unknown_timeout_seconds + 5)
    silent = create_notification(service=service, dispatch_started_at=utcnow() - overdue)
    sweep_stuck_notifications.fn()
    assert status_of(silent.id) == "technical-failure"


def test_sweeps_go_on_past_a_row_they_cannot_read(service, worker):
    long_ago = utcnow() - datetime.timedelta(days=4)
    bad, good = (create_notification(service=service, created_at=long_ago) for _ in range(2))
    make_unreadable(bad)

    sweep_stuck_notifications.fn()

    # (statuses_of reads the status alone: status_of would decrypt the row it cannot read)
    wait_for(lambda: statuses_of([good.id, bad.id]) in ({str(good.id): done, str(bad.id): "technical-failure"}
                                                        for done in ("sending", "delivered")), timeout=30)
    late_bad, late_good = (create_notification(service=service, status="sending", created_at=long_ago)
                           for _ in range(2))
    make_unreadable(late_bad)
    time_out_sending.fn()
    assert set(statuses_of([late_bad.id, late_good.id]).values()) == {"temporary-failure"}


@pytest.mark.parametrize("state, status", [("delivered", "delivered"), ("undeliverable", "permanent-failure")])
def test_a_receipt_before_the_answer_records_the_send_then_moves_it_on(service, caplog, state, status):
    notification = create_notification(service=service, fragment_count=2)
    assert dispatch.claim(notification)

    apply_receipts("http-gateway", [{"id": "gw-43", "reference": str(notification.id), "status": state}])

    row = Notification.get_by_id(notification.id)
    assert (row.status, row.provider_reference, row.sent_by) == (status, "gw-43", "http-gateway")
    assert row.sent_at is not None and row.billable_units == 2
    assert "refused status change" not in caplog.text  # it was `created`, then `sending`: nothing refused
