"""POST sms/email with `fallback` (issue 44): each alternative refused at accept as it would be alone, its
place in front; a refused alternative records nothing; the reads carry the chain's links; /openapi.json
documents it."""
from __future__ import annotations

import pytest

from config import get_settings
from models.notification import Notification
from models.service import Service, TeamMember
from tests.factories import (
    Chain,
    auth_headers,
    chain_of,
    create_key,
    create_notification,
    create_sample_template,
    create_service,
    set_chain,
)
from tests.responses import errors

ADDRESS = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234 AB  AMSTERDAM"}


class Sender:
    """A service with a template of each kind, and its alternatives and sends."""

    def __init__(self, client, service: Service, key_type: str = "live") -> None:
        self.client, self.service = client, service
        self.key = create_key(service=service, key_type=key_type)
        self.templates = {kind: str(create_sample_template(service=service, template_type=kind).id)
                          for kind in ("sms", "email", "letter")}

    def email(self, **fields):
        return {"type": "email", "template_id": self.templates["email"], "email_address": "anna@example.nl", **fields}

    def letter(self, **fields):
        return {"type": "letter", "template_id": self.templates["letter"],
                "personalisation": dict(ADDRESS), **fields}

    def sms(self, fallback, personalisation=None):
        body = {"phone_number": "0612345678", "template_id": self.templates["sms"],
                "personalisation": personalisation or {"name": "Anna"}, "fallback": fallback}
        return self.client.post("/v2/notifications/sms", json=body, headers=auth_headers(self.key))


@pytest.fixture
def sender(client, service):
    return Sender(client, service)


def test_a_text_with_two_alternatives_is_accepted_and_stores_them_merged(sender):
    response = sender.sms([sender.email(personalisation={"name": "Ann"}), sender.letter()], {"name": "Anna", "code": 1})
    assert response.status_code == 201
    stored = chain_of(response.get_json()["id"])
    assert stored.fallback == [
        {"type": "email", "template_id": sender.templates["email"], "email_address": "anna@example.nl",
         "personalisation": {"name": "Ann", "code": 1}},
        {"type": "letter", "template_id": sender.templates["letter"],
         "personalisation": {"name": "Anna", "code": 1, **ADDRESS}},
    ]
    assert (stored.fallback_for, stored.fallback_sent_as, stored.fallback_refused) == (None, None, None)


def test_a_send_without_fallback_stores_none(sender):
    response = sender.client.post("/v2/notifications/sms", headers=auth_headers(sender.key), json={
        "phone_number": "0612345678", "template_id": sender.templates["sms"], "personalisation": {"name": "A"}})
    assert response.status_code == 201
    assert chain_of(response.get_json()["id"]) == Chain()  # no link beside it at all


def test_each_check_of_an_alternative_refuses_the_send_with_its_place(sender):
    needs_town = str(create_sample_template(service=sender.service, template_type="email",
                                            body="Hello ((name)) in ((town))").id)
    cases = [
        ([sender.email(email_address="not-an-address")],
         ("ValidationError", "fallback[0] email_address Not a valid email address")),
        ([sender.letter(), sender.email(template_id="0b5e1c7e-6a5f-4c59-9bd7-5a8f3f0c0f11")],
         ("BadRequestError", "fallback[1] Template not found")),
        ([sender.email(template_id=sender.templates["letter"])],
         ("BadRequestError", "fallback[0] letter template is not suitable for email notification")),
        ([sender.email(template_id=needs_town)], ("BadRequestError", "fallback[0] Missing personalisation: town")),
    ]
    for fallback, expected in cases:
        assert errors(sender.sms(fallback)) == (400, [expected])
    assert errors(sender.sms([sender.letter(personalisation={"address_line_1": "A. Jansen"})]))[1] == [
        ("ValidationError", "fallback[0] personalisation address_line_2 is a required property"),
        ("ValidationError", "fallback[0] personalisation address_line_3 is a required property"),
        ("ValidationError", "fallback[0] Address must be at least 3 lines"),
        ("ValidationError", "fallback[0] Last line of address must be a real NL postcode or another country"),
    ]
    assert Notification.select().count() == 0


def test_schema_errors_of_an_alternative_name_its_place(sender):
    response = sender.sms([{"type": "email", "template_id": sender.templates["email"]},
                           {"type": "sms", "template_id": "nope", "colour": "red"}])
    assert errors(response) == (400, [
        ("ValidationError", "fallback[0] email_address is a required property"),
        ("ValidationError", "fallback[1] personalisation is a required property"),
        ("ValidationError", "fallback[1] Additional properties are not allowed (colour was unexpected)"),
        ("ValidationError", "fallback[1] template_id is not a valid UUID"),
        ("ValidationError", "fallback[1] type sms is not one of [email, letter]"),
    ])
    [(_, too_many)] = errors(sender.sms([sender.letter()] * 3))[1]
    assert too_many.startswith("fallback [") and too_many.endswith("is too long")
    assert Notification.select().count() == 0


def test_an_email_falls_back_to_a_letter_only(sender):
    body = {"email_address": "anna@example.nl", "template_id": sender.templates["email"],
            "personalisation": {"name": "Anna"}, "fallback": [sender.email()]}
    post = lambda: sender.client.post("/v2/notifications/email", json=body, headers=auth_headers(sender.key))  # noqa: E731
    assert errors(post()) == (400, [("ValidationError", "fallback[0] type email is not one of [letter]")])
    body["fallback"] = [sender.letter()]
    assert post().status_code == 201


def test_permissions_and_the_team_key_rules_of_an_alternative(client):
    no_letters = Sender(client, create_service(permissions=["sms", "email"]))
    assert errors(no_letters.sms([no_letters.letter()])) == (
        400, [("BadRequestError", "fallback[0] Service is not allowed to send letters")])
    service = create_service()
    TeamMember.create(service=service, mobile_number="+31612345678")
    team = Sender(client, service, key_type="team")
    assert errors(team.sms([team.letter()])) == (  # 403, as the letter alone would be
        403, [("BadRequestError", "fallback[0] Cannot send letters with a team api key")])
    assert errors(team.sms([team.email()])) == (
        400, [("BadRequestError", "fallback[0] Cannot send to this recipient using a team-only API key.")])
    assert Notification.select().count() == 0


def test_trial_mode_refuses_an_alternative_to_someone_outside_the_team(client):
    service = create_service(trial_mode=True)
    TeamMember.create(service=service, mobile_number="+31612345678", email_address="team@example.nl")
    trial = Sender(client, service)
    see = f"see {get_settings().admin_url}/trial-mode"
    assert errors(trial.sms([trial.email()])) == (
        400, [("BadRequestError", f"fallback[0] Cannot send to this recipient when service is in trial mode - {see}")])
    assert errors(trial.sms([trial.letter()])) == (
        400, [("BadRequestError", f"fallback[0] Cannot send letters when service is in trial mode - {see}")])
    assert Notification.select().count() == 0
    assert trial.sms([trial.email(email_address="team@example.nl")]).status_code == 201


def test_reads_carry_the_chains_links(client, service, key):
    first = create_notification(service=service, status="permanent-failure")
    second = create_notification(service=service, notification_type="email", fallback_for=first.id)
    set_chain(first.id, fallback_sent_as=second.id)
    read = client.get(f"/v2/notifications/{first.id}", headers=auth_headers(key)).get_json()
    assert (read["fallback_for"], read["fallback_sent_as"]) == (None, str(second.id))
    listed = client.get("/v2/notifications", headers=auth_headers(key)).get_json()["notifications"]
    assert {n["id"]: (n["fallback_for"], n["fallback_sent_as"]) for n in listed} == {
        str(first.id): (None, str(second.id)), str(second.id): (str(first.id), None)}


def test_openapi_documents_fallback(client):
    document = client.get("/openapi.json").get_json()
    assert "fallback_for" in str(document) and "fallback_sent_as" in str(document)
    sms = document["paths"]["/v2/notifications/sms"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert sms["properties"]["fallback"]["maxItems"] == 2
    assert sms["properties"]["fallback"]["items"]["properties"]["type"] == {"enum": ["email", "letter"]}
