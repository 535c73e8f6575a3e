"""Team members and the guest list, stored normalised for the trial-mode check."""
from __future__ import annotations

import pytest

from models.service import GuestListEntry, TeamMember
from tests.admin_helpers import admin_headers, errors, post_service


@pytest.fixture
def service(client):
    return post_service(client)


def _post(client, service, path, body):
    return client.post(f"/admin/services/{service['id']}/{path}", json=body, headers=admin_headers())


def test_add_team_member(client, service):
    response = _post(client, service, "users", {"email_address": " Ann@Example.NL ", "mobile_number": "06 1234 5678"})
    assert response.status_code == 201
    body = response.get_json()
    assert (body["email_address"], body["mobile_number"]) == ("ann@example.nl", "+31612345678")
    assert TeamMember.get_by_id(body["id"]).mobile_number == "+31612345678"


@pytest.mark.parametrize("body, stored", [
    ({"email_address": "bob@example.nl", "mobile_number": None}, ("bob@example.nl", None)),
    ({"mobile_number": "0031 (6) 12-34-56-78"}, (None, "+31612345678")),
])
def test_one_of_the_two_is_enough(client, service, body, stored):
    response = _post(client, service, "users", body)
    assert response.status_code == 201
    assert (response.get_json()["email_address"], response.get_json()["mobile_number"]) == stored


@pytest.mark.parametrize("body, messages", [
    ({}, ["email_address or mobile_number must be provided"]),
    ({"email_address": None, "mobile_number": None}, ["email_address or mobile_number must be provided"]),
    ({"email_address": "nope", "mobile_number": "0612"},
     ["email_address Not a valid email address", "mobile_number Not enough digits"]),
    ({"name": "Ann"}, ["Additional properties are not allowed (name was unexpected)"]),
])
def test_team_member_validation(client, service, body, messages):
    assert errors(_post(client, service, "users", body)) == (400, [("ValidationError", m) for m in messages])


def test_list_team_members(client, service):
    first = _post(client, service, "users", {"email_address": "a@example.nl"}).get_json()
    second = _post(client, service, "users", {"mobile_number": "+31612345678"}).get_json()
    response = client.get(f"/admin/services/{service['id']}/users", headers=admin_headers())
    assert response.status_code == 200
    assert response.get_json() == {"users": [first, second]}


@pytest.mark.parametrize("raw, stored, kind", [
    ("Someone@Example.NL", "someone@example.nl", "email"),
    ("06-12345678", "+31612345678", "mobile"),
    ("0031612345678", "+31612345678", "mobile"),
    ("31612345678", "+31612345678", "mobile"),
    ("(06) 12 34 56 78", "+31612345678", "mobile"),
    ("+44 7900 900123", "+447900900123", "mobile"),
])
def test_add_guest(client, service, raw, stored, kind):
    response = _post(client, service, "guest-list", {"recipient": raw})
    assert response.status_code == 201
    body = response.get_json()
    assert (body["recipient"], body["recipient_type"]) == (stored, kind)
    assert GuestListEntry.get_by_id(body["id"]).recipient == stored


def test_a_guest_is_listed_once(client, service):
    first = _post(client, service, "guest-list", {"recipient": "0612345678"})
    again = _post(client, service, "guest-list", {"recipient": "+31 6 12345678"})
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.get_json() == first.get_json()
    listed = client.get(f"/admin/services/{service['id']}/guest-list", headers=admin_headers())
    assert listed.get_json() == {"guest_list": [first.get_json()]}


@pytest.mark.parametrize("body, message", [
    ({}, "recipient is a required property"),
    ({"recipient": ""}, "recipient cannot be blank"),
    ({"recipient": "not@valid"}, "recipient Not a valid email address"),
    ({"recipient": "0612"}, "recipient Not enough digits"),
    ({"recipient": "call me"}, "recipient Must not contain letters or symbols"),
])
def test_guest_validation(client, service, body, message):
    assert errors(_post(client, service, "guest-list", body)) == (400, [("ValidationError", message)])


def test_lists_are_per_service(client, service):
    other = post_service(client, name="Other")
    _post(client, other, "guest-list", {"recipient": "a@example.nl"})
    _post(client, other, "users", {"email_address": "a@example.nl"})
    for path, key in (("guest-list", "guest_list"), ("users", "users")):
        response = client.get(f"/admin/services/{service['id']}/{path}", headers=admin_headers())
        assert response.get_json() == {key: []}
