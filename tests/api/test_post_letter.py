"""POST /v2/notifications/letter with a template: what the caller sees for good and bad requests."""
from __future__ import annotations

import jsonschema
import pytest

from api.v2.notifications.letter_schemas import post_letter_response
from models.notification import Notification
from models.service import LetterContact, Service
from pipeline.domain.recipients.postal_address import FORBIDDEN_CHARACTERS
from tests.admin_helpers import admin_headers, post_key, post_service
from tests.factories import auth_headers, create_key, create_sample_template, create_service
from tests.responses import errors

ADDRESS = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234ab amsterdam"}
TRIAL = "Cannot send letters when service is in trial mode - see https://admin.example.nl/trial-mode"


@pytest.fixture
def template(service):
    contact = LetterContact.create(service=service, contact_block="Gemeente ((town))\nPostbus 1", is_default=True)
    return create_sample_template(service=service, template_type="letter", subject="Uw aanvraag ((ref))",
                                  body="Beste ((name)),\n\n* een\n* twee", postage="first", letter_contact=contact)


def post(client, key, body, **headers):
    return client.post("/v2/notifications/letter", json=body, headers={**auth_headers(key), **headers})


def letter(template, **personalisation):
    values = {**ADDRESS, "name": "Anna", "ref": "R-1", "town": "Ergens", **personalisation}
    return {"template_id": str(template.id), "personalisation": values}


def test_accepted_letter(client, key, template):
    response = post(client, key, {**letter(template), "reference": "my-ref"})
    assert response.status_code == 201
    body = response.get_json()
    jsonschema.validate(body, post_letter_response)
    assert body["content"] == {"subject": "Uw aanvraag R-1", "body": "Beste Anna,\n\n* een\n* twee"}
    assert body["reference"] == "my-ref" and body["scheduled_for"] is None
    assert body["uri"].endswith(f"/v2/notifications/{body['id']}")
    assert body["template"]["id"] == str(template.id) and body["template"]["version"] == 1
    stored = Notification.get_by_id(body["id"])
    assert stored.notification_type == "letter" and stored.status == "created" and not stored.precompiled
    assert stored.to == "A. Jansen\nDorpsstraat 1\n1234 AB  AMSTERDAM"
    assert stored.normalised_to == "a.jansendorpsstraat11234abamsterdam"
    assert stored.address == {"lines": ["A. Jansen", "Dorpsstraat 1", "1234 AB  AMSTERDAM"], "postcode": "1234 AB",
                              "country": "Netherlands"}
    assert (stored.postage, stored.international, stored.billable_units) == ("first", False, None)
    assert stored.reply_to_text == "Gemeente Ergens\nPostbus 1"  # the contact block, filled in


@pytest.mark.parametrize("last_lines, postage, international", [
    (["1234 AB  AMSTERDAM"], "first", False),
    (["1234AB Amsterdam", "Nederland"], "first", False),
    (["10115 Berlin", "Duitsland"], "europe", True),
    (["Paris", "France"], "europe", True),
    (["Tokyo 100-0001", "Japan"], "rest-of-world", True),
    (["BFPO 123"], "europe", True),
])
def test_postage_follows_the_address(client, key, template, last_lines, postage, international):
    lines = ["A. Jansen", "Straat 1", *last_lines]
    personalisation = {f"address_line_{n}": line for n, line in enumerate(lines, start=1)}
    response = post(client, key, {"template_id": str(template.id),
                                  "personalisation": {"name": "a", "ref": "b", "town": "c", **personalisation}})
    assert response.status_code == 201, response.get_json()
    stored = Notification.get_by_id(response.get_json()["id"])
    assert (stored.postage, stored.international) == (postage, international)


def address_error(client, key, template, address):
    values = {"name": "a", "ref": "b", "town": "c", **address}
    return errors(post(client, key, {"template_id": str(template.id), "personalisation": values}))


@pytest.mark.parametrize("address, messages", [
    ({"address_line_2": "Straat 1", "address_line_3": "1234 AB Ergens"},
     ["personalisation address_line_1 is a required property", "Address must be at least 3 lines"]),
    ({}, [f"personalisation address_line_{n} is a required property" for n in (1, 2, 3)]
     + ["Address must be at least 3 lines"]),
    ({**ADDRESS, "address_line_2": " "}, ["Address must be at least 3 lines"]),
    ({**{f"address_line_{n}": f"Regel {n}" for n in range(1, 8)}, "postcode": "1234 AB"},
     ["Address must be no more than 7 lines"]),
    ({**ADDRESS, "address_line_1": "=Jansen"}, [FORBIDDEN_CHARACTERS]),
    ({**ADDRESS, "address_line_3": "0123 AB Ergens"}, ["Must be a real NL postcode"]),
    ({**ADDRESS, "address_line_3": "Ergens"}, ["Last line of address must be a real NL postcode or another country"]),
    ({**ADDRESS, "address_line_3": "BFPO 123", "address_line_4": "Duitsland"},
     ["The last line of a BFPO address must not be a country."]),
    ({**ADDRESS, "address_line_2": "No fixed abode"}, ["Must be a real address"]),
    ({**ADDRESS, "address_line_2": "Zonder vaste woon- of verblijfplaats"}, ["Must be a real address"]),
])
def test_address_errors(client, key, template, address, messages):
    assert address_error(client, key, template, address) == (400, [("ValidationError", m) for m in messages])


def test_legacy_postcode_key_is_the_last_line(client, key, template):
    address = {"address_line_1": "A. Jansen", "address_line_2": "Straat 1", "postcode": "1234ab"}
    response = post(client, key, {"template_id": str(template.id),
                                  "personalisation": {"name": "a", "ref": "b", "town": "c", **address}})
    assert response.status_code == 201
    assert Notification.get_by_id(response.get_json()["id"]).to == "A. Jansen\nStraat 1\n1234 AB"


def test_schema_errors(client, key, template):
    assert errors(post(client, key, {})) == (400, [("ValidationError", "personalisation is a required property"),
                                                   ("ValidationError", "template_id is a required property")])
    assert errors(post(client, key, {**letter(template), "personalisation": "x", "postage": "first"})) == (400, [
        ("ValidationError", "Additional properties are not allowed (postage was unexpected)"),
        ("ValidationError", "personalisation x is not of type object"),
    ])


def test_missing_personalisation(client, key, template):
    values = {**ADDRESS, "name": "a"}
    response = post(client, key, {"template_id": str(template.id), "personalisation": values})
    assert errors(response) == (400, [("BadRequestError", "Missing personalisation: ref, town")])


def test_wrong_template(client, key, service):
    sms = create_sample_template(service=service, body="hi")
    assert errors(post(client, key, {"template_id": str(sms.id), "personalisation": ADDRESS})) == (
        400, [("BadRequestError", "sms template is not suitable for letter notification")])


def test_letter_contact_id(client, key, service, template):
    other = LetterContact.create(service=service, contact_block="Afdeling ((town))")
    response = post(client, key, {**letter(template), "letter_contact_id": str(other.id)})
    assert Notification.get_by_id(response.get_json()["id"]).reply_to_text == "Afdeling Ergens"
    unknown = "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11"
    assert errors(post(client, key, {**letter(template), "letter_contact_id": unknown})) == (400, [(
        "BadRequestError", f"letter_contact_id {unknown} does not exist in database for service id {service.id}")])


def test_permission_team_key_and_trial_mode(client):
    service = create_service(permissions=["sms", "email"])
    template = create_sample_template(service=service, template_type="letter", body="hi")
    assert errors(post(client, create_key(service=service), letter(template))) == (
        400, [("BadRequestError", "Service is not allowed to send letters")])
    service = create_service(trial_mode=True)
    template = create_sample_template(service=service, template_type="letter", body="hi")
    live, team, test = (create_key(service=service, key_type=t, name=t) for t in ("live", "team", "test"))
    assert errors(post(client, live, letter(template))) == (400, [("BadRequestError", TRIAL)])
    assert errors(post(client, team, letter(template))) == (403, [("BadRequestError",
                                                                   "Cannot send letters with a team api key")])
    assert post(client, test, letter(template)).status_code == 201  # test keys may, even in trial mode
    service.trial_mode = False
    service.save()
    assert post(client, live, letter(template)).status_code == 201
    assert post(client, team, letter(template)).status_code == 403


def test_daily_letter_limit(client):
    service = create_service(letter_daily_limit=1)
    template = create_sample_template(service=service, template_type="letter", body="hi")
    key = create_key(service=service)
    assert post(client, key, letter(template)).status_code == 201
    assert errors(post(client, key, letter(template))) == (429, [("TooManyRequestsError",
                                                                  "Exceeded send limits (letter: 1) for today")])
    # A refused request does not use up the allowance: an address error leaves the count alone.
    assert errors(post(client, key, {"template_id": str(template.id), "personalisation": {}}))[0] == 400


def test_rate_limit(client):
    service = create_service(rate_limit=1)
    template = create_sample_template(service=service, template_type="letter", body="hi")
    key = create_key(service=service)
    assert post(client, key, letter(template)).status_code == 201
    assert errors(post(client, key, letter(template))) == (429, [(
        "RateLimitError", "Exceeded rate limit for key type live of 1 requests per 60 seconds")])


def test_idempotency_key_replays_the_first_answer(client, key, template):
    first = post(client, key, letter(template), **{"Idempotency-Key": "abc"})
    again = post(client, key, letter(template), **{"Idempotency-Key": "abc"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.get_json() == again.get_json()
    assert Notification.select().count() == 1


def test_a_new_service_may_send_letters_once_live(client):
    created = post_service(client, name="Nieuwe gemeente")
    assert "letter" in created["permissions"] and created["trial_mode"] is True
    template = create_sample_template(service=Service.get_by_id(created["id"]), template_type="letter", body="hi")
    key = post_key(client, created["id"])["key"]
    assert errors(post(client, key, letter(template))) == (400, [("BadRequestError", TRIAL)])
    went_live = client.patch(f"/admin/services/{created['id']}", json={"trial_mode": False}, headers=admin_headers())
    assert went_live.status_code == 200
    assert post(client, key, letter(template)).status_code == 201


def test_the_api_takes_the_address_by_the_specs_names_only_and_fills_a_template_written_in_dutch(client, key,
                                                                                               service):
    dutch = create_sample_template(service=service, template_type="letter", subject="Aan ((adresregel_1))",
                                   body="Beste ((Adresregel 1)) van ((adresregel_2)),")
    response = post(client, key, {"template_id": str(dutch.id), "personalisation": ADDRESS})
    assert response.status_code == 201
    assert response.get_json()["content"] == {"subject": "Aan A. Jansen", "body": "Beste A. Jansen van Dorpsstraat 1,"}
    # The address's Dutch names are the console's and a spreadsheet's, not the API's.
    in_dutch = {"adresregel_1": "A. Jansen", "adresregel_2": "Dorpsstraat 1", "adresregel_3": "1234ab amsterdam"}
    response = post(client, key, {"template_id": str(dutch.id), "personalisation": in_dutch})
    assert errors(response) == (400, [("ValidationError", "personalisation address_line_1 is a required property"),
                                      ("ValidationError", "personalisation address_line_2 is a required property"),
                                      ("ValidationError", "personalisation address_line_3 is a required property"),
                                      ("ValidationError", "Address must be at least 3 lines")])
