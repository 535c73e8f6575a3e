"""POST /v2/notifications/sms: what the caller sees for good and bad requests."""
from __future__ import annotations

import jsonschema
import pytest

from api.v2.notifications.post_schemas import post_sms_response
from models.notification import Notification
from models.service import GuestListEntry, SmsSender, TeamMember
from tests.factories import auth_headers, create_key, create_sample_template, create_service
from tests.responses import errors


@pytest.fixture
def template(service):
    return create_sample_template(service=service, body="Hello ((name)), your code is ((code))")


def post(client, key, body):
    return client.post("/v2/notifications/sms", json=body, headers=auth_headers(key))


def test_accepted_sms(client, service, template):
    key = create_key(service=service)
    response = post(client, key, {"phone_number": "06-12345678", "template_id": str(template.id),
                                  "personalisation": {"name": "Anna", "code": 1234}, "reference": "ref-1"})
    assert response.status_code == 201
    body = response.get_json()
    jsonschema.validate(body, post_sms_response)
    assert body["content"] == {"body": "Hello Anna, your code is 1234", "from_number": "Notify"}
    assert body["reference"] == "ref-1" and body["scheduled_for"] is None
    assert body["uri"].endswith(f"/v2/notifications/{body['id']}")
    assert body["template"] == {"id": str(template.id), "version": 1, "uri": body["template"]["uri"]}
    assert body["template"]["uri"].endswith(f"/v2/template/{template.id}")
    stored = Notification.get_by_id(body["id"])
    assert (stored.status, stored.normalised_to, stored.key_type) == ("created", "+31612345678", "live")


def test_schema_errors_are_all_reported(client, service):
    key = create_key(service=service)
    response = post(client, key, {"template_id": "nope", "personalisation": "x", "foo": 1, "reference": "r" * 1001})
    assert errors(response) == (400, [
        ("ValidationError", "phone_number is a required property"),
        ("ValidationError", "Additional properties are not allowed (foo was unexpected)"),
        ("ValidationError", "personalisation x is not of type object"),
        ("ValidationError", f"reference {'r' * 1001} is too long"),
        ("ValidationError", "template_id is not a valid UUID"),
    ])


def test_missing_template_id(client, service):
    response = post(client, create_key(service=service), {"phone_number": "0612345678"})
    assert errors(response) == (400, [("ValidationError", "template_id is a required property")])


def test_bad_sms_sender_id_format(client, service, template):
    response = post(client, create_key(service=service),
                    {"phone_number": "0612345678", "template_id": str(template.id), "sms_sender_id": "abc",
                     "personalisation": {"name": "a", "code": 1}})
    assert errors(response) == (400, [("ValidationError", "sms_sender_id is not a valid UUID")])


def test_malformed_json(client, service):
    response = client.post("/v2/notifications/sms", data="{nope", headers=auth_headers(create_key(service=service)))
    assert errors(response) == (400, [("BadRequestError", "Invalid JSON supplied in POST data")])


@pytest.mark.parametrize("number, message", [
    ("06123456789", "phone_number Too many digits"),
    ("0612345", "phone_number Not enough digits"),
    ("0201234567", "phone_number Not a NL mobile number"),
    ("06-1234-abcd", "phone_number Must not contain letters or symbols"),
    ("+999 123456789", "phone_number Not a valid country prefix"),
])
def test_phone_number_errors(client, service, template, number, message):
    response = post(client, create_key(service=service), {"phone_number": number, "template_id": str(template.id),
                                                           "personalisation": {"name": "a", "code": 1}})
    assert errors(response) == (400, [("ValidationError", message)])


def test_missing_personalisation(client, service, template):
    response = post(client, create_key(service=service), {"phone_number": "0612345678", "template_id": str(template.id),
                                                           "personalisation": {"name": "a"}})
    assert errors(response) == (400, [("BadRequestError", "Missing personalisation: code")])


def test_unknown_template_and_wrong_type(client, service):
    key = create_key(service=service)
    response = post(client, key, {"phone_number": "0612345678", "template_id": "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11"})
    assert errors(response) == (400, [("BadRequestError", "Template not found")])
    email = create_sample_template(service=service, template_type="email", body="hi")
    response = post(client, key, {"phone_number": "0612345678", "template_id": str(email.id)})
    assert errors(response) == (400, [("BadRequestError", "email template is not suitable for sms notification")])


def test_too_long(client, service):
    template = create_sample_template(service=service, body="((text))")
    response = post(client, create_key(service=service), {"phone_number": "0612345678", "template_id": str(template.id),
                                                           "personalisation": {"text": "a" * 919}})
    assert errors(response) == (400, [("BadRequestError", "Text messages cannot be longer than 918 characters."
                                                          " Your message is 919 characters.")])


def test_international_needs_permission(client, template):
    service = create_service(permissions=["sms"])
    template = create_sample_template(service=service, body="hi")
    response = post(client, create_key(service=service),
                    {"phone_number": "+44 7900 900123", "template_id": str(template.id)})
    assert errors(response) == (400, [("BadRequestError", "Cannot send to international mobile numbers")])


def test_no_sms_permission(client):
    service = create_service(permissions=["email"])
    template = create_sample_template(service=service, body="hi")
    response = post(client, create_key(service=service),
                    {"phone_number": "0612345678", "template_id": str(template.id)})
    assert errors(response) == (400, [("BadRequestError", "Service is not allowed to send text messages")])


def test_trial_mode_and_team_keys_reach_only_team_and_guest_list(client):
    service = create_service(trial_mode=True)
    template = create_sample_template(service=service, body="hi")
    TeamMember.create(service=service, mobile_number="06 11111111")
    GuestListEntry.create(service=service, recipient="+31622222222", recipient_type="mobile")
    live, team, test = (create_key(service=service, key_type=t, name=t) for t in ("live", "team", "test"))
    send = lambda key, number: post(client, key, {"phone_number": number, "template_id": str(template.id)})  # noqa: E731
    assert send(live, "+31 6 1111 1111").status_code == 201
    assert send(live, "0622222222").status_code == 201
    assert errors(send(live, "0633333333")) == (400, [("BadRequestError",
        "Cannot send to this recipient when service is in trial mode - see https://admin.example.nl/trial-mode")])
    assert errors(send(team, "0633333333")) == (400, [("BadRequestError",
                                                       "Cannot send to this recipient using a team-only API key.")])
    assert send(test, "0633333333").status_code == 201
    service.trial_mode = False
    service.save()
    assert send(live, "0633333333").status_code == 201
    assert send(team, "0633333333").status_code == 400


def test_sms_sender(client, service, template):
    key = create_key(service=service)
    SmsSender.create(service=service, sms_sender="Gemeente", is_default=True)
    other = SmsSender.create(service=service, sms_sender="0031612", is_default=False)
    body = {"phone_number": "0612345678", "template_id": str(template.id), "personalisation": {"name": "a", "code": 1}}
    assert post(client, key, body).get_json()["content"]["from_number"] == "Gemeente"
    chosen = post(client, key, {**body, "sms_sender_id": str(other.id)})
    assert chosen.get_json()["content"]["from_number"] == "0031612"
    unknown = "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11"
    assert errors(post(client, key, {**body, "sms_sender_id": unknown})) == (400, [(
        "BadRequestError", f"sms_sender_id {unknown} does not exist in database for service id")])


def test_nulls_for_optional_fields_are_accepted(client, service):
    template = create_sample_template(service=service, body="hi")
    response = post(client, create_key(service=service),
                    {"phone_number": "0612345678", "template_id": str(template.id),
                     "personalisation": None, "reference": None, "sms_sender_id": None})
    assert response.status_code == 201
