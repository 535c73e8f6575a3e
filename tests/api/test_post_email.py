"""POST /v2/notifications/email: what the caller sees for good and bad requests."""
from __future__ import annotations

import jsonschema
import pytest

from api.v2.notifications.post_schemas import post_email_response
from models.notification import Notification
from models.service import ReplyToAddress
from tests.factories import auth_headers, create_key, create_sample_template, create_service
from tests.responses import errors


@pytest.fixture
def service():
    return create_service(name="Gemeente Utrecht")


def post(client, key, body):
    return client.post("/v2/notifications/email", json=body, headers=auth_headers(key))


def test_accepted_email(client, service, key):
    template = create_sample_template(service=service, template_type="email", subject="About ((topic))",
                                      body="Dear ((name)),\r\n\r\nThanks.")
    response = post(client, key, {"email_address": "a.b@example.nl", "template_id": str(template.id),
                                  "personalisation": {"name": "Anna", "topic": "tax"}})
    assert response.status_code == 201
    body = response.get_json()
    jsonschema.validate(body, post_email_response)
    assert body["content"] == {"from_email": "gemeente.utrecht@notify.localhost", "body": "Dear Anna,\r\n\r\nThanks.",
                               "subject": "About tax", "one_click_unsubscribe_url": None}
    assert Notification.get_by_id(body["id"]).normalised_to == "a.b@example.nl"


def test_bad_address(client, service, key):
    template = create_sample_template(service=service, template_type="email", subject="s", body="b")
    response = post(client, key, {"email_address": "not-an-address", "template_id": str(template.id)})
    assert errors(response) == (400, [("ValidationError", "email_address Not a valid email address")])


def test_unsubscribe_url_must_be_https(client, service, key):
    template = create_sample_template(service=service, template_type="email", subject="s", body="b")
    response = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                  "one_click_unsubscribe_url": "http://example.nl/u"})
    assert errors(response) == (400, [("ValidationError", "one_click_unsubscribe_url is not a valid https url")])
    ok = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                            "one_click_unsubscribe_url": "https://example.nl/u?user=1"})
    assert ok.get_json()["content"]["one_click_unsubscribe_url"] == "https://example.nl/u?user=1"


def test_too_big(client, service, key):
    template = create_sample_template(service=service, template_type="email", subject="s", body="((text))")
    response = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                  "personalisation": {"text": "x" * 2_000_000}})
    assert errors(response) == (400, [("BadRequestError",
                                       "Emails cannot be longer than 2000000 bytes. Your message is 2000001 bytes.")])


def test_reply_to(client, service, key):
    template = create_sample_template(service=service, template_type="email", subject="s", body="b")
    chosen = ReplyToAddress.create(service=service, email_address="help@utrecht.nl")
    response = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                  "email_reply_to_id": str(chosen.id)})
    assert Notification.get_by_id(response.get_json()["id"]).reply_to_text == "help@utrecht.nl"
    unknown = "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11"
    response = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                  "email_reply_to_id": unknown})
    assert errors(response) == (400, [("BadRequestError", f"email_reply_to_id {unknown} does not exist in database"
                                                          f" for service id {service.id}")])


def test_sanitise_content_for(client, service, key):
    template = create_sample_template(service=service, template_type="email", subject="s", body="Hello ((name))")
    response = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                  "personalisation": {"name": "[click](https://evil.example) *now*"},
                                  "sanitise_content_for": ["name"]})
    body = response.get_json()
    assert response.status_code == 201
    sanitised = body["sanitised_content"]["name"]
    assert sanitised["unsanitised"] == "[click](https://evil.example) *now*"
    assert "https://evil.example" not in sanitised["sanitised"] and "\\[click\\]" in sanitised["sanitised"]
    assert body["content"]["body"] == f"Hello {sanitised['sanitised']}"


def test_sanitised_content_is_empty_when_nothing_was_changed(client, service, key):
    template = create_sample_template(service=service, template_type="email", subject="s", body="((a)) ((b))")
    plain = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                               "personalisation": {"a": "*x*", "b": "y"}})
    assert plain.status_code == 201 and plain.get_json()["sanitised_content"] == {}
    unchanged = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                   "personalisation": {"a": "Anna", "b": "y*"}, "sanitise_content_for": ["a", "b"]})
    assert unchanged.get_json()["sanitised_content"] == {"b": {"sanitised": "y\\*", "unsanitised": "y*"}}
    jsonschema.validate(unchanged.get_json(), post_email_response)


def test_trial_mode(client):
    service = create_service(trial_mode=True)
    template = create_sample_template(service=service, template_type="email", subject="s", body="b")
    response = post(client, create_key(service=service),
                    {"email_address": "x@example.nl", "template_id": str(template.id)})
    assert errors(response) == (400, [("BadRequestError",
        "Cannot send to this recipient when service is in trial mode - see https://admin.example.nl/trial-mode")])


def test_scheduled_for(client, service, key):
    import datetime

    template = create_sample_template(service=service, template_type="email", subject="s", body="b")
    soon = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    response = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                  "scheduled_for": soon})
    assert response.status_code == 201 and response.get_json()["scheduled_for"].startswith(soon[:19])
    late = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=25)).isoformat()
    response = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                  "scheduled_for": late})
    assert errors(response) == (400, [("ValidationError", "scheduled_for datetime can only be 24 hours in the future")])


def test_body_and_personalisation_are_encrypted_at_rest(client, service, key):
    from models.db import database

    template = create_sample_template(service=service, template_type="email", subject="s", body="Secret ((code))")
    response = post(client, key, {"email_address": "a@example.nl", "template_id": str(template.id),
                                  "personalisation": {"code": "swordfish"}})
    notification_id = response.get_json()["id"]
    raw = database.execute_sql("SELECT body, personalisation FROM notification").fetchall()
    assert raw and all("swordfish" not in (column or "") for row in raw for column in row)
    assert Notification.get_by_id(notification_id).body == "Secret swordfish"
