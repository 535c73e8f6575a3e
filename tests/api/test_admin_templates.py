"""Templates through the admin API: versions made by changes, read back here and on the v2 API."""
from __future__ import annotations

import uuid

import jsonschema
import pytest

from api.v2.template.template_schemas import template_response
from tests.admin_helpers import admin_headers, errors, post_key, post_service, service_headers


@pytest.fixture
def service(client):
    return post_service(client, permissions=["email", "sms", "letter"])


def _url(service, *parts):
    return "/".join([f"/admin/services/{service['id']}/templates", *parts])


def _create(client, service, **body):
    response = client.post(_url(service), json=body, headers=admin_headers())
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_create_sms(client, service):
    body = _create(client, service, name="Reminder", type="sms", body="Hi ((name))")
    jsonschema.validate(body, template_response)
    assert {k: body[k] for k in ("name", "type", "version", "body", "subject", "postage", "updated_at",
                                 "letter_contact_block", "personalisation", "created_by")} == {
        "name": "Reminder", "type": "sms", "version": 1, "body": "Hi ((name))", "subject": None,
        "postage": None, "updated_at": None, "letter_contact_block": None,
        "personalisation": {"name": {"required": True}}, "created_by": "notify-admin",
    }


def test_create_email_with_author(client, service):
    body = _create(client, service, name="Welcome", type="email", body="Dear ((name))", subject="Hello",
                   created_by="ann@example.nl")
    assert (body["subject"], body["created_by"], body["postage"]) == ("Hello", "ann@example.nl", None)


def test_create_letter_defaults_to_second_class(client, service):
    body = _create(client, service, name="Letter", type="letter", body="Text", subject="Heading")
    assert (body["subject"], body["postage"]) == ("Heading", "second")


def test_create_letter_with_contact_block(client, service):
    contact = client.post(f"/admin/services/{service['id']}/letter-contacts",
                          json={"contact_block": "Tax office\nPO Box 1"}, headers=admin_headers()).get_json()
    body = _create(client, service, name="Letter", type="letter", body="Text", subject="Heading",
                   postage="first", letter_contact_id=contact["id"])
    assert (body["postage"], body["letter_contact_block"]) == ("first", "Tax office\nPO Box 1")


@pytest.mark.parametrize("body, messages", [
    ({}, ["body is a required property", "name is a required property", "type is a required property"]),
    ({"name": "n", "type": "fax", "body": "b"}, ["type fax is not one of [sms, email, letter]"]),
    ({"name": "n", "type": "email", "body": "b"}, ["subject is a required property"]),
    ({"name": "n", "type": "letter", "body": "b"}, ["subject is a required property"]),
    ({"name": "n", "type": "email", "body": "b", "subject": " "}, ["subject cannot be blank"]),
    ({"name": "n", "type": "email", "body": "b", "subject": None}, ["subject cannot be blank"]),
    ({"name": "n", "type": "sms", "body": " "}, ["body cannot be blank"]),
    ({"name": "n", "type": "sms", "body": "b", "subject": "s"}, ["subject is not allowed for sms templates"]),
    ({"name": "n", "type": "email", "body": "b", "subject": "s", "postage": "first"},
     ["postage is only allowed for letter templates"]),
    ({"name": "n", "type": "letter", "body": "b", "subject": "s", "postage": "third"},
     ["postage third is not one of [first, second, economy, europe, rest-of-world]"]),
    ({"name": "n", "type": "letter", "body": "b", "subject": "s", "letter_contact_id": "x"},
     ["letter_contact_id is not a valid UUID"]),
    ({"name": "n", "type": "letter", "body": "b", "subject": "s", "letter_contact_id": str(uuid.uuid4())},
     ["letter_contact_id is not a letter contact of this service"]),
    ({"name": "n", "type": "sms", "body": "b", "version": 2},
     ["Additional properties are not allowed (version was unexpected)"]),
])
def test_create_validation(client, service, body, messages):
    response = client.post(_url(service), json=body, headers=admin_headers())
    assert errors(response) == (400, [("ValidationError", m) for m in messages])


def test_change_makes_versions_and_v2_reads_the_old_one(client, service):
    created = _create(client, service, name="Old name", type="email", body="Body one", subject="Subject")
    response = client.post(_url(service, created["id"]), json={"name": "New name", "created_by": "bob"},
                           headers=admin_headers())
    assert response.status_code == 200
    changed = response.get_json()
    assert (changed["version"], changed["name"], changed["body"], changed["created_by"]) == (
        2, "New name", "Body one", "bob")
    assert changed["updated_at"] is not None and changed["created_at"] == created["created_at"]

    key = post_key(client, service["id"])["key"]
    old = client.get(f"/v2/template/{created['id']}/version/1", headers=service_headers(key))
    assert old.status_code == 200
    assert (old.get_json()["name"], old.get_json()["version"]) == ("Old name", 1)
    latest = client.get(f"/v2/template/{created['id']}", headers=service_headers(key))
    assert (latest.get_json()["name"], latest.get_json()["version"]) == ("New name", 2)


def test_every_content_field_can_change(client, service):
    client.post(f"/admin/services/{service['id']}/letter-contacts", json={"contact_block": "Main office"},
                headers=admin_headers())
    contact = client.post(f"/admin/services/{service['id']}/letter-contacts",
                          json={"contact_block": "PO Box 1"}, headers=admin_headers()).get_json()
    created = _create(client, service, name="L", type="letter", body="B", subject="S")
    changes = {"name": "L2", "body": "B2", "subject": "S2", "postage": "europe", "letter_contact_id": contact["id"]}
    body = client.post(_url(service, created["id"]), json=changes, headers=admin_headers()).get_json()
    assert (body["version"], body["name"], body["body"], body["subject"], body["postage"],
            body["letter_contact_block"]) == (2, "L2", "B2", "S2", "europe", "PO Box 1")
    removed = client.post(_url(service, created["id"]), json={"letter_contact_id": None}, headers=admin_headers())
    # A version that names no contact block has none of its own: the default applies only when sending.
    assert (removed.get_json()["version"], removed.get_json()["letter_contact_block"]) == (3, None)


def test_no_change_makes_no_version(client, service):
    created = _create(client, service, name="Same", type="sms", body="Body")
    response = client.post(_url(service, created["id"]), json={"name": "Same", "created_by": "someone"},
                           headers=admin_headers())
    assert response.status_code == 200
    assert response.get_json() == created


@pytest.mark.parametrize("body, messages", [
    ({"type": "email"}, ["Additional properties are not allowed (type was unexpected)"]),
    ({"subject": "s"}, ["subject is not allowed for sms templates"]),
    ({"postage": "first"}, ["postage is only allowed for letter templates"]),
    ({"body": ""}, ["body cannot be blank"]),
])
def test_change_validation(client, service, body, messages):
    created = _create(client, service, name="T", type="sms", body="Body")
    response = client.post(_url(service, created["id"]), json=body, headers=admin_headers())
    assert errors(response) == (400, [("ValidationError", m) for m in messages])


def test_get_one_all_and_versions(client, service):
    first = _create(client, service, name="First", type="sms", body="One")
    second = _create(client, service, name="Second", type="email", body="Two", subject="S")
    client.post(_url(service, first["id"]), json={"body": "One, again"}, headers=admin_headers())

    one = client.get(_url(service, first["id"]), headers=admin_headers())
    assert (one.status_code, one.get_json()["version"], one.get_json()["body"]) == (200, 2, "One, again")

    listed = client.get(_url(service), headers=admin_headers()).get_json()["templates"]
    assert [(t["id"], t["version"]) for t in listed] == [(first["id"], 2), (second["id"], 1)]

    versions = client.get(_url(service, first["id"], "versions"), headers=admin_headers())
    assert versions.status_code == 200
    assert [(v["version"], v["body"]) for v in versions.get_json()["versions"]] == [(1, "One"), (2, "One, again")]
    assert versions.get_json()["versions"][0] == first


def test_templates_of_another_service_are_not_found(client, service):
    other = post_service(client, name="Other")
    theirs = _create(client, other, name="Theirs", type="sms", body="Body")
    for response in (
        client.get(_url(service, theirs["id"]), headers=admin_headers()),
        client.get(_url(service, theirs["id"], "versions"), headers=admin_headers()),
        client.post(_url(service, theirs["id"]), json={"name": "Mine now"}, headers=admin_headers()),
    ):
        assert errors(response) == (404, [("NoResultFound", "No result found")])
    assert client.get(_url(service), headers=admin_headers()).get_json() == {"templates": []}


def test_malformed_template_id(client, service):
    response = client.get(_url(service, "abc"), headers=admin_headers())
    assert errors(response) == (400, [("ValidationError", "template_id is not a valid UUID")])
