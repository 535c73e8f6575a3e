"""Failover: two real HTTP gateways, one failing, and two SMTP relays, the first unreachable. Every
message reaches one provider once; the failing gateway leaves the rotation and comes back."""
from __future__ import annotations

import collections
import dataclasses
import json
import socket
import time

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

import config
from models.notification import Notification
from pipeline.infrastructure.providers.sms import gateways
from tests.admin_helpers import admin_headers
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from tests.provider_gateways import provider_gateways
from tests.smtp_server import SmtpServer
from workers.broker import current_broker, ops_redis

broker = current_broker()  # conftest built it through the web app's factory

COOLDOWN = 60  # seconds; the test shortens it in Redis when it wants the cool-down over


@pytest.fixture
def two_gateways():
    """gw-a takes every text while in rotation (priority 10); gw-b only what gw-a cannot (priority 0)."""
    with FakeGateway(token="token-a") as a, FakeGateway(token="token-b") as b:
        before = config.get_settings()
        config._settings = dataclasses.replace(
            before, sms_gateway_url=None, sms_gateway_failure_threshold=3, sms_gateway_cooldown_seconds=COOLDOWN,
            sms_gateways=json.dumps([
                {"name": "gw-a", "url": a.url, "token": "token-a", "priority": 10, "international": False},
                {"name": "gw-b", "url": b.url, "token": "token-b", "priority": 0, "international": True}]))
        gateways._synced.clear()
        try:
            yield a, b
        finally:
            config._settings = before
            gateways._synced.clear()


def in_rotation(client) -> dict[str, bool]:
    listed = client.get("/admin/sms-gateways", headers=admin_headers()).get_json()["sms_gateways"]
    return {g["name"]: g["in_rotation"] for g in listed}


def test_texts_fail_over_to_the_second_gateway_once_each_and_the_first_comes_back(client, live_server, worker,
                                                                                   two_gateways):
    a, b = two_gateways
    service = create_service()
    template = create_sample_template(service=service, body="Code ((code))")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)

    def send(count: int) -> list[str]:
        return [api.send_sms_notification("0612345678", str(template.id), {"code": str(n)})["id"] for n in range(count)]

    a.fail_next(3, status=503)  # gw-a refuses: certainly not delivered there
    first = send(3)
    b.wait_for_messages(3, timeout=15)
    assert a.messages == [] and a.attempts == 3
    wait_for(lambda: in_rotation(client) == {"gw-a": False, "gw-b": True})  # three failures: out of rotation

    second = send(3)  # gw-a is healthy again, but out of rotation until its cool-down ends
    b.wait_for_messages(6, timeout=15)
    assert a.attempts == 3

    broker.client.expire(f"{config.get_settings().queue_namespace}:sms-circuit:gw-a:open", 1)  # the cool-down ends
    wait_for(lambda: in_rotation(client)["gw-a"])
    third = send(3)
    a.wait_for_messages(3, timeout=15)
    # Its probe got through: its pace ramps up from an eighth rather than taking every held text at once.
    assert ops_redis().exists(f"{config.get_settings().queue_namespace}:sms-pace:gw-a:ramp")

    token = config.get_settings().provider_webhook_token
    for gateway in (a, b):
        for message in gateway.messages:
            answered = gateway.send_receipt(message.payload["callback_url"], token, message.id, "delivered")
            assert answered.status_code == 200
    everything = first + second + third
    wait_for(lambda: all(status_of(n) == "delivered" for n in everything))
    references = collections.Counter(m.payload["reference"] for m in a.messages + b.messages)
    assert references == collections.Counter(everything)  # each text reached one gateway, once
    assert {str(n.id): n.sent_by for n in Notification.select()} == {
        **{n: "gw-b" for n in first + second}, **{n: "gw-a" for n in third}}
    assert a.messages[0].payload["callback_url"].endswith("/providers/gw-a/delivery-receipts")


def test_failover_and_the_circuit_breaker_across_provider_types(client, live_server, worker):
    """A Twilio gateway that refuses leaves the rotation; CM.com takes its texts; both report."""
    with provider_gateways(["twilio", "cm"], priorities=[10, 0], sms_gateway_failure_threshold=3,
                           sms_gateway_cooldown_seconds=COOLDOWN) as (twilio, cm):
        service = create_service()
        template = create_sample_template(service=service, body="Code ((code))")
        api = NotificationsAPIClient(create_key(service=service), base_url=live_server)

        def send(count: int) -> list[str]:
            return [api.send_sms_notification("0612345678", str(template.id), {"code": str(n)})["id"]
                    for n in range(count)]

        twilio.fail_next(3, status=503)
        ids = send(3)
        cm.wait_for_messages(3, timeout=15)
        wait_for(lambda: in_rotation(client) == {"twilio-gw": False, "cm-gw": True})
        ids += send(2)  # Twilio would take them now, but it is out of rotation until its cool-down ends
        cm.wait_for_messages(5, timeout=15)
        assert twilio.messages == [] and twilio.attempts == 3
        for message in cm.messages:
            assert cm.send_receipt(cm.receipt_url(message), "", message.id, "delivered").status_code == 200
        wait_for(lambda: all(status_of(n) == "delivered" for n in ids))
        assert {n.sent_by for n in Notification.select()} == {"cm-gw"}
        assert sorted(cm.references()) == sorted(ids)


def test_international_texts_go_only_to_a_gateway_that_sends_abroad(client, live_server, worker, two_gateways):
    a, b = two_gateways
    service = create_service()
    template = create_sample_template(service=service, body="Hello")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    notification_id = api.send_sms_notification("+44 7900 900123", str(template.id))["id"]
    [message] = b.wait_for_messages(1, timeout=15)
    assert message.payload["reference"] == notification_id and a.attempts == 0
    wait_for(lambda: status_of(notification_id) == "sent")


def test_a_gateway_that_may_have_the_text_is_not_failed_over(client, live_server, worker, two_gateways):
    a, b = two_gateways
    before = config.get_settings()
    config._settings = dataclasses.replace(before, sms_gateway_timeout_seconds=0.5)
    service = create_service()
    template = create_sample_template(service=service, body="Hello")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    a.stall_next(1, 2.0)  # the request went out and no answer came in time: gw-a may have it
    notification_id = api.send_sms_notification("0612345678", str(template.id))["id"]
    wait_for(lambda: a.attempts == 1)
    time.sleep(1.5)
    assert b.attempts == 0  # never sent elsewhere: it waits for gw-a's receipt
    assert status_of(notification_id) == "created"
    assert Notification.get_by_id(notification_id).sent_by == "gw-a"  # where its lookup or receipt comes from


def test_a_gateway_that_drops_repeats_gets_the_retry_and_no_other_does(client, live_server, worker, two_gateways):
    a, b = two_gateways
    config._settings = dataclasses.replace(config.get_settings(), sms_gateway_timeout_seconds=0.5,
                                           sms_gateway_deduplicates=True)
    service = create_service()
    template = create_sample_template(service=service, body="Hello")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    a.stall_next(1, 2.0)
    notification_id = api.send_sms_notification("0612345678", str(template.id))["id"]
    [message] = a.wait_for_messages(1, timeout=15)  # sent again to gw-a, which would drop a repeat
    assert message.payload["reference"] == notification_id and a.attempts == 2 and b.attempts == 0
    wait_for(lambda: status_of(notification_id) == "sending")
    assert Notification.get_by_id(notification_id).sent_by == "gw-a"


@pytest.fixture
def two_relays():
    """SMTP_URL points at a port where nothing listens; SMTP_FALLBACK_URL at a real relay."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with SmtpServer() as fallback:
        before = config.get_settings()
        config._settings = dataclasses.replace(before, smtp_url=f"smtp://127.0.0.1:{closed_port}",
                                               smtp_fallback_url=fallback.url, smtp_timeout_seconds=1.0)
        try:
            yield fallback
        finally:
            config._settings = before


def send_email(live_server) -> str:
    service = create_service()
    template = create_sample_template(service=service, template_type="email", body="Hello", subject="Hi")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    return api.send_email_notification("someone@example.nl", str(template.id))["id"]


def test_an_email_the_first_relay_refuses_goes_through_the_second(live_server, worker, two_relays):
    notification_id = send_email(live_server)
    [received] = two_relays.wait_for_messages(1, timeout=15)
    assert received.rcpt_tos == ("someone@example.nl",)
    wait_for(lambda: status_of(notification_id) == "delivered")
    assert Notification.get_by_id(notification_id).sent_by == "smtp-fallback"


def test_an_email_the_first_relay_never_greets_for_goes_through_the_second(live_server, worker, two_relays):
    with socket.socket() as silent:  # takes connections (the kernel completes them) and never speaks
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        config._settings = dataclasses.replace(config._settings, smtp_url=f"smtp://127.0.0.1:{silent.getsockname()[1]}")
        notification_id = send_email(live_server)
        two_relays.wait_for_messages(1, timeout=15)
        wait_for(lambda: status_of(notification_id) == "delivered")
    assert Notification.get_by_id(notification_id).sent_by == "smtp-fallback"


def test_an_email_the_first_relay_may_have_is_not_sent_to_the_second(live_server, worker, two_relays):
    with SmtpServer() as first:
        config._settings = dataclasses.replace(config._settings, smtp_url=first.url)
        first.stall_data_next(1, 3.0)  # takes the message, answers DATA after our timeout
        notification_id = send_email(live_server)
        first.wait_for_messages(1, timeout=15)
        time.sleep(2.0)
        assert two_relays.messages == []  # it may have arrived: never a second copy
        assert status_of(notification_id) == "created"
