"""Sends carried from the API to the providers and back by real workers on real Redis."""
from __future__ import annotations

import dataclasses
import logging

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

import config
from config import get_settings
from models.notification import Notification
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_sample_template


def client_for(service, live_server, key_type="live"):
    return NotificationsAPIClient(create_key(service=service, key_type=key_type, name=key_type), base_url=live_server)


def test_test_key_sms_goes_through_the_simulated_provider_to_delivered(service, live_server, worker):
    template = create_sample_template(service=service, body="Code ((code))")
    api = client_for(service, live_server, "test")
    response = api.send_sms_notification("0612345678", str(template.id), {"code": 42})
    wait_for(lambda: status_of(response["id"]) == "delivered")
    stored = Notification.get_by_id(response["id"])
    assert stored.sent_by == "simulated" and stored.billable_units == 1 and stored.sent_at is not None
    read = api.get_notification_by_id(response["id"])
    assert read["is_cost_data_ready"] is True and read["cost_details"]["billable_sms_fragments"] == 1

    long = api.send_sms_notification("0612345678", str(template.id), {"code": "x" * 200})
    wait_for(lambda: status_of(long["id"]) == "delivered")
    assert api.get_notification_by_id(long["id"])["cost_details"]["billable_sms_fragments"] == 2


def test_test_key_email_reaches_delivered_and_never_the_smtp_server(service, live_server, worker, real_providers):
    smtp, _ = real_providers
    template = create_sample_template(service=service, template_type="email", subject="Hello", body="Hi ((name))")
    client = client_for(service, live_server, "test")
    response = client.send_email_notification("a@example.nl", str(template.id), {"name": "x"})
    wait_for(lambda: status_of(response["id"]) == "delivered")
    assert smtp.messages == []


def test_simulated_failures_by_recipient(service, live_server, worker):
    template = create_sample_template(service=service, template_type="email", subject="Hello", body="Hi")
    api = client_for(service, live_server, "test")
    temp = api.send_email_notification("temp-fail@example.nl", str(template.id))
    perm = api.send_email_notification("perm-fail@example.nl", str(template.id))
    wait_for(lambda: status_of(temp["id"]) == "temporary-failure")
    wait_for(lambda: status_of(perm["id"]) == "permanent-failure")


def test_live_sms_arrives_at_the_gateway_once_and_receipts_move_its_status(service, live_server, worker,
                                                                           real_providers):
    _, gateway = real_providers
    template = create_sample_template(service=service, body="Hello ((name))")
    response = client_for(service, live_server).send_sms_notification("06 12345678", str(template.id), {"name": "Piet"})
    [message] = gateway.wait_for_messages(1)
    assert message.payload["to"] == "+31612345678"
    assert message.payload["body"] == "Hello Piet"
    assert message.payload["from"] == "Notify"
    assert message.payload["reference"] == response["id"]
    assert message.headers["Authorization"] == "Bearer gateway-token"
    wait_for(lambda: status_of(response["id"]) == "sending")
    token = get_settings().provider_webhook_token
    assert gateway.send_receipt(message.payload["callback_url"], token, message.id, "buffered").status_code == 200
    wait_for(lambda: status_of(response["id"]) == "pending")
    gateway.send_receipt(message.payload["callback_url"], token, message.id, "delivered")
    wait_for(lambda: status_of(response["id"]) == "delivered")
    assert len(gateway.messages) == 1 and gateway.attempts == 1


def test_international_sms_ends_sent(service, live_server, worker, real_providers):
    _, gateway = real_providers
    template = create_sample_template(service=service, body="Hi")
    response = client_for(service, live_server).send_sms_notification("+44 7900 900123", str(template.id))
    gateway.wait_for_messages(1)
    wait_for(lambda: status_of(response["id"]) == "sent")
    stored = Notification.get_by_id(response["id"])
    assert stored.international and stored.rate_multiplier == 3


def test_gateway_errors_are_retried_then_succeed(service, live_server, worker, real_providers):
    _, gateway = real_providers
    gateway.fail_next(2, status=503)
    template = create_sample_template(service=service, body="Hi")
    response = client_for(service, live_server).send_sms_notification("0612345678", str(template.id))
    gateway.wait_for_messages(1)
    wait_for(lambda: status_of(response["id"]) == "sending")
    assert gateway.attempts == 3 and len(gateway.messages) == 1


def test_a_send_that_reaches_no_provider_waits_out_an_outage_longer_than_any_retry_count(
        service, live_server, worker, real_providers, caplog):
    _, gateway = real_providers
    # Every try answered 500 for 3 s: with retries 50-200 ms apart, many more tries than
    # PROVIDER_MAX_RETRIES (3) allows, and more failures than the circuit breaker takes.
    gateway.fail_for(3.0, status=500)
    template = create_sample_template(service=service, body="Hi")
    with caplog.at_level(logging.WARNING, logger="pipeline.stages.delivery"):
        response = client_for(service, live_server).send_sms_notification("0612345678", str(template.id))
        wait_for(lambda: status_of(response["id"]) == "sending", timeout=60)
    assert len(gateway.messages) == 1 and gateway.attempts > 1 + get_settings().provider_max_retries
    waits = [r for r in caplog.records if r.getMessage().startswith(f"{response['id']} not sent, trying again in")]
    assert waits and all(r.levelno == logging.WARNING and r.exc_info is None for r in waits)


def test_a_send_that_reaches_no_provider_within_its_window_is_a_technical_failure(
        service, live_server, worker, real_providers, monkeypatch):
    _, gateway = real_providers
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), send_retry_window_seconds=1))
    gateway.fail_for(60, status=500)
    template = create_sample_template(service=service, body="Hi")
    response = client_for(service, live_server).send_sms_notification("0612345678", str(template.id))
    wait_for(lambda: status_of(response["id"]) == "technical-failure")
    assert gateway.messages == [] and gateway.attempts > 1


def test_gateway_refusing_the_recipient_is_a_permanent_failure(service, live_server, worker, real_providers):
    _, gateway = real_providers
    gateway.fail_next(1, status=400)
    template = create_sample_template(service=service, body="Hi")
    response = client_for(service, live_server).send_sms_notification("0612345678", str(template.id))
    wait_for(lambda: status_of(response["id"]) == "permanent-failure")
    assert gateway.attempts == 1


def test_live_email_arrives_over_smtp_with_headers(service, live_server, worker, real_providers):
    from models.service import ReplyToAddress

    smtp, _ = real_providers
    ReplyToAddress.create(service=service, email_address="replies@gemeente.nl", is_default=True)
    template = create_sample_template(service=service, template_type="email", subject="Over ((topic))",
                                      body="Beste ((name)),\n\n* een\n* twee")
    response = client_for(service, live_server).send_email_notification(
        "Burger@Example.nl", str(template.id), {"name": "Jan", "topic": "uw aanvraag"},
        one_click_unsubscribe_url="https://gemeente.nl/unsubscribe?u=1",
    )
    [received] = smtp.wait_for_messages(1)
    message = received.message
    assert list(received.rcpt_tos) == ["Burger@Example.nl"]
    assert message["Subject"] == "Over uw aanvraag"
    assert message["Reply-To"] == "replies@gemeente.nl"
    assert message["List-Unsubscribe"] == "<https://gemeente.nl/unsubscribe?u=1>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert "Beste Jan," in text and "<li" in html and "Jan" in html
    wait_for(lambda: status_of(response["id"]) == "delivered")
    assert len(smtp.messages) == 1


def test_smtp_refusing_the_recipient_is_a_permanent_failure(service, live_server, worker, real_providers):
    smtp, _ = real_providers
    smtp.fail_next(1, reply="550 5.1.1 No such user")
    template = create_sample_template(service=service, template_type="email", subject="Hello", body="Hi")
    response = client_for(service, live_server).send_email_notification("nobody@example.nl", str(template.id))
    wait_for(lambda: status_of(response["id"]) == "permanent-failure")


def test_the_html_email_honours_sanitise_content_for(service, live_server, worker, real_providers):
    smtp, _ = real_providers
    template = create_sample_template(service=service, template_type="email", subject="Bericht",
                                      body="Beste ((name)), zie ((note))")
    client_for(service, live_server).send_email_notification(
        "burger@example.nl", str(template.id),
        {"name": "**Jan** https://phish.example/x", "note": "**vet**"}, sanitise_content_for=["name"])
    [received] = smtp.wait_for_messages(1)
    html = received.message.get_body(("html",)).get_content()
    text = received.message.get_body(("plain",)).get_content()
    # The sanitised value arrives as plain text in both parts; the other value keeps its Markdown.
    assert "phish.example" not in html and "phish.example" not in text
    assert "<strong>Jan</strong>" not in html and "**Jan**" in html
    assert "**vet**" in text


class _WorkerDied(Exception):
    pass


def test_a_simulated_send_whose_worker_dies_before_recording_it_is_still_delivered(service, live_server, worker,
                                                                                 monkeypatch):
    from tests.factories import create_notification
    from workers import sending

    notification = create_notification(service=service, fragment_count=1)
    queue = sending.GATEWAYS.queue_receipts

    def queues_then_dies(receipts: list[dict]) -> None:
        queue(receipts)
        raise _WorkerDied  # the last moment a kill could come: the receipt queued, the record not committed

    monkeypatch.setattr(sending, "GATEWAYS", dataclasses.replace(sending.GATEWAYS, queue_receipts=queues_then_dies))
    with pytest.raises(_WorkerDied):
        sending.deliver_sms.fn(str(notification.id))
    monkeypatch.undo()

    # The record was rolled back; the receipt records the send itself
    # (docs/architecture.md#unknown-outcomes-wait-for-their-receipt).
    wait_for(lambda: status_of(notification.id) == "delivered", timeout=20)
    assert Notification.get_by_id(notification.id).sent_by == "simulated"


def test_a_simulated_send_that_cannot_queue_its_receipt_stays_created_for_its_retry(service, live_server, worker,
                                                                                    monkeypatch):
    import redis

    from tests.conftest import unreachable_outbox
    from tests.factories import create_notification
    from workers import receipts, sending

    notification = create_notification(service=service, fragment_count=1)
    unreachable = unreachable_outbox()
    monkeypatch.setattr(receipts, "simulated_outbox", lambda kind: unreachable)
    with pytest.raises(redis.ConnectionError) as raised:
        sending.deliver_sms.fn(str(notification.id))
    monkeypatch.undo()

    # Nothing recorded, so the message's retry (or the stuck sweep) sends it again.
    stored = Notification.get_by_id(notification.id)
    assert (stored.status, stored.sent_by, stored.dispatch_started_at) == ("created", None, None)
    assert sending.RETRIES["retry_when"](0, raised.value)
    sending.deliver_sms.fn(str(notification.id))
    wait_for(lambda: status_of(notification.id) == "delivered", timeout=20)
