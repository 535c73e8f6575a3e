"""SMS senders, reply-to addresses, letter contact blocks and inbound numbers."""
from __future__ import annotations

import pytest

from models.service import InboundNumber, Service, SmsSender, default_of
from tests.admin_helpers import admin_headers, errors, post_service

KINDS = [
    ("sms-senders", "sms_senders", "sms_sender", ["NOTIFY", "GEMEENTE", "+31612345678"]),
    ("reply-to-addresses", "reply_to_addresses", "email_address", ["a@example.nl", "b@example.nl", "c@example.nl"]),
    ("letter-contacts", "letter_contacts", "contact_block", ["PO Box 1", "PO Box 2", "PO Box 3"]),
]


@pytest.fixture
def service(client):
    return post_service(client)


def _post(client, service, path, body):
    return client.post(f"/admin/services/{service['id']}/{path}", json=body, headers=admin_headers())


@pytest.mark.parametrize("path, list_key, field, values", KINDS)
def test_first_is_default_and_a_new_default_takes_over(client, service, path, list_key, field, values):
    first = _post(client, service, path, {field: values[0], "is_default": False})
    assert first.status_code == 201
    assert first.get_json()[field] == values[0] and first.get_json()["is_default"] is True
    second = _post(client, service, path, {field: values[1]}).get_json()
    assert second["is_default"] is False
    third = _post(client, service, path, {field: values[2], "is_default": True}).get_json()
    assert third["is_default"] is True

    listed = client.get(f"/admin/services/{service['id']}/{path}", headers=admin_headers())
    assert listed.status_code == 200
    rows = listed.get_json()[list_key]
    assert [(r["id"], r[field], r["is_default"]) for r in rows] == [
        (first.get_json()["id"], values[0], False), (second["id"], values[1], False), (third["id"], values[2], True)]


@pytest.mark.parametrize("path, body, message", [
    ("sms-senders", {}, "sms_sender is a required property"),
    ("sms-senders", {"sms_sender": "TWELVE CHARS"},
     "sms_sender must be up to 11 letters, digits and spaces, or a phone number"),
    ("sms-senders", {"sms_sender": "OK", "is_default": "yes"}, "is_default yes is not of type boolean"),
    ("reply-to-addresses", {"email_address": "not-an-address"}, "email_address Not a valid email address"),
    ("letter-contacts", {"contact_block": " "}, "contact_block cannot be blank"),
    ("letter-contacts", {"contact_block": "x", "extra": 1},
     "Additional properties are not allowed (extra was unexpected)"),
])
def test_validation(client, service, path, body, message):
    assert errors(_post(client, service, path, body)) == (400, [("ValidationError", message)])


def test_defaults_are_per_service(client, service):
    other = post_service(client, name="Other")
    _post(client, service, "sms-senders", {"sms_sender": "MINE"})
    _post(client, other, "sms-senders", {"sms_sender": "THEIRS", "is_default": True})
    # A new default of one service leaves the other service's default alone.
    assert default_of(SmsSender, Service.get_by_id(service["id"])).sms_sender == "MINE"
    assert default_of(SmsSender, Service.get_by_id(other["id"])).sms_sender == "THEIRS"


def test_assign_inbound_number(client, service):
    response = _post(client, service, "inbound-number", {"number": "+31 (97) 0-1234 5678"})
    assert response.status_code == 201
    body = response.get_json()
    assert (body["number"], body["service_id"], body["active"]) == ("+3197012345678", service["id"], True)
    listed = client.get(f"/admin/services/{service['id']}/inbound-number", headers=admin_headers())
    assert listed.get_json() == {"inbound_numbers": [body]}


def test_a_free_number_is_taken_and_a_held_one_refused(client, service):
    free = InboundNumber.create(number="+3197012345678", service=None, active=False)
    body = _post(client, service, "inbound-number", {"number": "+3197012345678"}).get_json()
    assert (body["id"], body["service_id"], body["active"]) == (str(free.id), service["id"], True)
    # Assigning it again to the same service is fine.
    assert _post(client, service, "inbound-number", {"number": "+3197012345678"}).status_code == 201
    other = post_service(client, name="Other")
    response = _post(client, other, "inbound-number", {"number": "+3197012345678"})
    assert errors(response) == (400, [("BadRequestError",
                                       "Inbound number +3197012345678 is already assigned to another service")])


def test_inbound_number_validation(client, service):
    response = _post(client, service, "inbound-number", {"number": "call us"})
    assert errors(response) == (400, [(
        "ValidationError", "number must be a phone number of 3 to 15 digits, optionally starting with +")])
