"""Bounces and complaints: the provider webhook and the DSN/ARF reader move emails along and reach the
service's callbacks. A real SMTP server takes the email, a real worker applies what comes back, a real
HTTP receiver plays the service."""
from __future__ import annotations

import dataclasses
import time

import pytest
import requests
from notifications_python_client.notifications import NotificationsAPIClient

import config
from models.notification_event import NotificationEvent
from pipeline.infrastructure.providers.email.reports import read_report
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.smtp_server import SmtpServer
from tests.test_callbacks import assert_signed, receiver, register  # noqa: F401  (receiver: a fixture)

DSN = """From: MAILER-DAEMON@relay.example
To: bounces@notify.localhost
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="XX"

--XX
Content-Type: text/plain

Your message could not be delivered.
--XX
Content-Type: message/delivery-status

Reporting-MTA: dns; relay.example
Arrival-Date: Mon, 23 Nov 2026 10:00:00 +0100

Final-Recipient: rfc822; {to}
Action: {action}
Status: {status}
Diagnostic-Code: smtp; 550 {status} User unknown
Last-Attempt-Date: Mon, 23 Nov 2026 10:01:00 +0100

--XX
Content-Type: text/rfc822-headers

From: tax.office@notify.localhost
To: {to}
Message-ID: {message_id}
Subject: Hello

--XX--
"""

ARF = """From: fbl@isp.example
To: abuse@notify.localhost
Subject: FW: complaint
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="YY"

--YY
Content-Type: text/plain

This is an email abuse report for an email message received from IP 192.0.2.1.
--YY
Content-Type: message/feedback-report

Feedback-Type: {feedback_type}
User-Agent: SomeGenerator/1.0
Version: 1
Arrival-Date: Mon, 23 Nov 2026 11:00:00 +0000

--YY
Content-Type: message/rfc822

From: tax.office@notify.localhost
To: someone@example.nl
Message-ID: {message_id}
Subject: Hello

Hello there
--YY--
"""


def dsn(message_id: str, *, action: str = "failed", status: str = "5.1.1", to: str = "someone@example.nl") -> bytes:
    return DSN.format(message_id=message_id, action=action, status=status, to=to).encode()


def arf(message_id: str, feedback_type: str = "abuse") -> bytes:
    return ARF.format(message_id=message_id, feedback_type=feedback_type).encode()


@pytest.fixture
def smtp(monkeypatch):
    """A real SMTP relay; `delivered_on_accept` follows SMTP_DELIVERED_ON_ACCEPT (off: bounces decide)."""
    with SmtpServer() as server:
        before = config.get_settings()
        config._settings = dataclasses.replace(before, smtp_url=server.url, smtp_delivered_on_accept=False)
        try:
            yield server
        finally:
            config._settings = before


@pytest.fixture
def service():
    return create_service()


def send_email(service, live_server) -> str:
    template = create_sample_template(service=service, template_type="email", body="Hello ((name))")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    return api.send_email_notification("someone@example.nl", str(template.id), {"name": "x"}, reference="ref-9")["id"]


def sent_message_id(smtp: SmtpServer, notification_id: str) -> str:
    [received] = smtp.wait_for_messages(1)
    wait_for(lambda: status_of(notification_id) == "sending")
    return str(received.message["Message-ID"])


def post_events(live_server: str, body, token: str | None = None) -> requests.Response:
    token = token or config.get_settings().provider_webhook_token
    return requests.post(f"{live_server}/providers/ses/email-events", json=body,
                         headers={"Authorization": f"Bearer {token}"}, timeout=10)


def test_a_bounce_and_a_complaint_posted_by_the_provider_reach_the_service(service, receiver, live_server, worker,
                                                                          smtp):
    register(service, receiver, "delivery-status")
    register(service, receiver, "complaint")
    notification_id = send_email(service, live_server)
    message_id = sent_message_id(smtp, notification_id)
    time.sleep(0.3)
    assert receiver.requests == []  # `sending` is not final: with delivered-on-accept off, nothing yet

    answer = post_events(live_server, {"type": "permanent-bounce", "message_id": message_id,
                                       "timestamp": "2026-11-23T10:00:00Z", "detail": "550 5.1.1 unknown user"})
    assert (answer.status_code, answer.json()) == (200, {"result": "success"})
    wait_for(lambda: status_of(notification_id) == "permanent-failure")
    [status_callback] = receiver.wait_for(1)
    assert status_callback.json["status"] == "permanent-failure" and status_callback.json["id"] == notification_id

    assert post_events(live_server, [{"type": "complaint", "reference": notification_id,
                                      "timestamp": "2026-11-23T11:30:00Z"}]).status_code == 200
    _, complaint = receiver.wait_for(2)
    event = NotificationEvent.get(NotificationEvent.notification_id == notification_id)
    assert complaint.json == {
        "notification_id": notification_id, "complaint_id": str(event.id), "reference": "ref-9",
        "to": "someone@example.nl", "template_id": complaint.json["template_id"], "template_version": 1,
        "complaint_date": "2026-11-23T11:30:00.000000Z", "complaint_type": "abuse",
    }
    assert_signed(complaint)
    assert status_of(notification_id) == "permanent-failure"  # a complaint changes no status

    post_events(live_server, {"type": "complaint", "message_id": message_id})  # reported twice: recorded once
    time.sleep(0.5)
    assert len(receiver.requests) == 2
    assert NotificationEvent.select().count() == 1


def test_delivered_and_temporary_bounce_events(service, live_server, worker, smtp):
    first, second = send_email(service, live_server), send_email(service, live_server)
    smtp.wait_for_messages(2)
    wait_for(lambda: {status_of(first), status_of(second)} == {"sending"})
    post_events(live_server, [{"type": "delivered", "reference": first},
                              {"type": "temporary-bounce", "reference": second, "detail": "mailbox full"}])
    wait_for(lambda: (status_of(first), status_of(second)) == ("delivered", "temporary-failure"))


def test_the_mta_pipe_reads_a_bounce_and_an_abuse_report(app, service, receiver, live_server, worker, smtp,
                                                         monkeypatch):
    # With delivered-on-accept (the default), a relay's acceptance counts as delivery until a bounce says not.
    # The smtp fixture puts the settings back.
    config._settings = dataclasses.replace(config._settings, smtp_delivered_on_accept=True)
    register(service, receiver, "complaint")
    notification_id = send_email(service, live_server)
    [received] = smtp.wait_for_messages(1)
    message_id = str(received.message["Message-ID"])
    wait_for(lambda: status_of(notification_id) == "delivered")

    runner = app.test_cli_runner()
    result = runner.invoke(args=["read-email-report"], input=dsn(message_id))
    assert result.exit_code == 0, result.output
    wait_for(lambda: status_of(notification_id) == "permanent-failure")

    result = runner.invoke(args=["read-email-report"], input=arf(message_id, "fraud"))
    assert result.exit_code == 0, result.output
    [complaint] = receiver.wait_for(1)
    assert complaint.json["notification_id"] == notification_id and complaint.json["complaint_type"] == "fraud"
    assert complaint.json["complaint_date"] == "2026-11-23T11:00:00.000000Z"


def test_an_email_counted_delivered_on_acceptance_is_delivered_by_its_send(service, live_server, worker, smtp,
                                                                          monkeypatch):
    # The smtp fixture puts the settings back.
    config._settings = dataclasses.replace(config._settings, smtp_delivered_on_accept=True)
    notification_id = send_email(service, live_server)
    smtp.wait_for_messages(1)
    wait_for(lambda: status_of(notification_id) == "delivered")


def test_the_mta_pipe_drops_what_is_not_a_report(app):
    result = app.test_cli_runner().invoke(args=["read-email-report"], input=b"From: a@b.c\nSubject: hi\n\nhello\n")
    assert result.exit_code == 0
    assert "not a delivery status notification or abuse report" in result.output


def test_report_reading():
    message_id = "<1.2.3.5b0a7c2e-1111-4222-8333-944445555666@notify.localhost>"
    [hard] = read_report(dsn(message_id))
    assert ((hard.type, hard.message_id, hard.detail)
            == ("permanent-bounce", message_id, "5.1.1 smtp; 550 5.1.1 User unknown"))
    assert str(hard.occurred_at) == "2026-11-23 09:01:00"
    assert [e.type for e in read_report(dsn(message_id, status="4.2.2"))] == ["temporary-bounce"]
    assert [e.type for e in read_report(dsn(message_id, action="delivered", status="2.0.0"))] == ["delivered"]
    assert read_report(dsn(message_id, action="delayed", status="4.4.7")) == []
    [complaint] = read_report(arf(message_id))
    assert (complaint.type, complaint.detail, complaint.message_id) == ("complaint", "abuse", message_id)


def test_the_webhook_is_authenticated_and_checks_its_body(client):
    assert client.post("/providers/ses/email-events", json={"type": "delivered", "reference": "x"}).status_code == 401
    wrong = client.post("/providers/ses/email-events", json={"type": "delivered", "reference": "x"},
                        headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    headers = {"Authorization": f"Bearer {config.get_settings().provider_webhook_token}"}
    bad = client.post("/providers/ses/email-events", json={"type": "opened", "reference": "x"}, headers=headers)
    assert bad.status_code == 400
    messages = [e["message"] for e in bad.get_json()["errors"]]
    assert any("opened is not one of" in m for m in messages), messages
    unnamed = client.post("/providers/ses/email-events", json={"type": "delivered"}, headers=headers)
    assert unnamed.status_code == 400
    assert unnamed.get_json()["errors"] == [{"error": "ValidationError",
                                             "message": "message_id is a required property"}]
