"""POST /admin/services/<id>/notifications/<id>/cancel: letters and scheduled messages sent through the v2
API are cancelled, their daily counts given back, and too-late cancels answered 400 with why."""
from __future__ import annotations

import datetime
import time

import pytest

from models.audit import AuditEvent
from models.db import utcnow
from models.notification import Notification
from pipeline.stages.letters import printing
from tests.admin_helpers import admin_headers, errors
from tests.conftest import status_of, wait_for
from tests.factories import auth_headers, create_key, create_notification, create_sample_template, create_service

ADDRESS = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234ab amsterdam"}


def _cancel(client, service_id, notification_id):
    return client.post(f"/admin/services/{service_id}/notifications/{notification_id}/cancel", headers=admin_headers())


def _letter(client, key, template):
    return client.post("/v2/notifications/letter", headers=auth_headers(key), json={
        "template_id": str(template.id), "personalisation": {**ADDRESS, "name": "Anna"}, "reference": "brief-1"})


def test_a_cancelled_letter_gives_its_daily_count_back(client):
    service = create_service(letter_daily_limit=1)
    key = create_key(service=service)
    template = create_sample_template(service=service, template_type="letter", body="Beste ((name))")
    sent = _letter(client, key, template)
    assert sent.status_code == 201
    assert errors(_letter(client, key, template))[0] == 429

    answer = _cancel(client, service.id, sent.get_json()["id"])
    assert answer.status_code == 200
    body = answer.get_json()
    assert (body["id"], body["type"], body["reference"], body["status"]) == (
        sent.get_json()["id"], "letter", "brief-1", "cancelled")
    assert body["cancelled_at"].endswith("Z")
    assert _letter(client, key, template).status_code == 201  # the count it took is back
    event = AuditEvent.get(AuditEvent.action == "notification.cancel")
    assert (event.subject_id, event.before, event.after) == (
        body["id"], {"status": "accepted"}, {"status": "cancelled"})

    again = _cancel(client, service.id, body["id"])
    assert errors(again) == (400, [("BadRequestError", "This message has already been cancelled")])
    assert _letter(client, key, template).status_code == 429  # a refused cancel gives nothing back


def test_a_letter_in_a_print_batch_is_too_late(client, service):
    letter = create_notification(service=service, notification_type="letter", billable_units=1)
    printing.claim_batches(now=datetime.datetime(2026, 11, 24, 9, 30))
    assert errors(_cancel(client, service.id, letter.id)) == (400, [(
        "BadRequestError", "It’s too late to cancel this letter. Printing started on 2026-11-24 at 09:30 UTC")])
    assert status_of(letter.id) == "created"


def test_a_scheduled_sms_is_cancelled_and_its_count_given_back(client):
    service = create_service(sms_daily_limit=1)
    key = create_key(service=service)
    template = create_sample_template(service=service, body="Tot morgen")
    later = (utcnow() + datetime.timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%S")
    sms = {"template_id": str(template.id), "phone_number": "0612345678", "scheduled_for": later}
    sent = client.post("/v2/notifications/sms", json=sms, headers=auth_headers(key))
    assert sent.status_code == 201
    assert _cancel(client, service.id, sent.get_json()["id"]).get_json()["status"] == "cancelled"
    assert status_of(sent.get_json()["id"]) == "cancelled"
    now = {"template_id": str(template.id), "phone_number": "0612345678"}
    straight = client.post("/v2/notifications/sms", json=now, headers=auth_headers(key))
    assert straight.status_code == 201
    assert errors(_cancel(client, service.id, straight.get_json()["id"])) == (400, [(
        "BadRequestError", "Only a scheduled message can be cancelled. This message was sent straight away")])


def test_a_scheduled_email_already_due_is_too_late(client, service):
    due = utcnow().replace(second=0, microsecond=0) - datetime.timedelta(minutes=1)
    email = create_notification(service=service, notification_type="email", scheduled_for=due)
    assert errors(_cancel(client, service.id, email.id)) == (400, [(
        "BadRequestError", f"It’s too late to cancel this message. It was due to be sent on {due:%Y-%m-%d} at "
                           f"{due:%H:%M} UTC")])


@pytest.mark.parametrize("which", ["unknown", "another service's", "past retention"])
def test_a_message_the_service_cannot_see_is_not_found(client, service, which):
    notification_id = {
        "unknown": lambda: "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11",
        "another service's": lambda: create_notification(service=create_service(), notification_type="letter").id,
        "past retention": lambda: create_notification(service=service, notification_type="letter",
                                                      created_at=utcnow() - datetime.timedelta(days=8)).id,
    }[which]()
    assert errors(_cancel(client, service.id, notification_id)) == (404, [("NoResultFound", "No result found")])


def test_a_malformed_id_is_a_400(client, service):
    status, messages = errors(_cancel(client, service.id, "not-a-uuid"))
    assert status == 400 and messages[0][0] == "ValidationError"
    assert Notification.select().count() == 0


def test_the_delayed_send_of_a_cancelled_scheduled_email_skips_it(client, service, worker):
    template = create_sample_template(service=service, template_type="email", body="Tot straks", subject="Afspraak")
    key = create_key(service=service)
    due = utcnow() + datetime.timedelta(seconds=3)
    bodies = [{"template_id": str(template.id), "email_address": f"{who}@example.nl",
               "scheduled_for": due.strftime("%Y-%m-%dT%H:%M:%S.%f")} for who in ("kept", "cancelled")]
    answers = [client.post("/v2/notifications/email", json=body, headers=auth_headers(key)) for body in bodies]
    assert [a.status_code for a in answers] == [201, 201], answers[0].get_json()
    kept, cancelled = (answer.get_json()["id"] for answer in answers)
    assert _cancel(client, service.id, cancelled).status_code == 200
    wait_for(lambda: status_of(kept) == "delivered", timeout=30)  # its delayed send came due and ran
    time.sleep(0.5)
    stored = Notification.get_by_id(cancelled)
    assert ((stored.status, stored.sent_at, stored.sent_by, stored.dispatch_started_at)
            == ("cancelled", None, None, None))
