"""Services through the admin API: create, list, read, and change every setting."""
from __future__ import annotations

import re
import uuid

import pytest

from models.service import Service
from tests.admin_helpers import admin_headers, errors, post_service

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def test_create_with_defaults(client):
    body = post_service(client, name="Tax office")
    assert uuid.UUID(body["id"])
    assert ISO.match(body.pop("created_at"))
    assert body == {
        "id": body["id"], "name": "Tax office", "active": True, "trial_mode": True,
        "permissions": ["email", "sms", "letter", "international_sms"], "rate_limit": 3000,
        "sms_daily_limit": 250000, "email_daily_limit": 250000, "letter_daily_limit": 20000,
        "international_sms_daily_limit": 100,
        "data_retention_days": {"email": 7, "sms": 7, "letter": 7},
        "file_download_contact": None, "hosted_unsubscribe": False, "time_zone": "Europe/Amsterdam", "updated_at": None,
    }
    assert Service.get_by_id(body["id"]).name == "Tax office"


def test_create_with_every_setting(client):
    body = post_service(client, name="Permits", trial_mode=False, rate_limit=100, sms_daily_limit=10,
                        email_daily_limit=20, letter_daily_limit=30, international_sms_daily_limit=0,
                        permissions=["email", "letter", "upload_document"],
                        file_download_contact="help@permits.example.nl",
                        data_retention_days={"email": 30, "letter": 90})
    assert body["trial_mode"] is False
    assert (body["rate_limit"], body["sms_daily_limit"], body["email_daily_limit"],
            body["letter_daily_limit"], body["international_sms_daily_limit"]) == (100, 10, 20, 30, 0)
    assert body["permissions"] == ["email", "letter", "upload_document"]
    assert body["file_download_contact"] == "help@permits.example.nl"
    assert body["data_retention_days"] == {"email": 30, "sms": 7, "letter": 90}


@pytest.mark.parametrize("name", ["Tax office", "TAX OFFICE", "  tax office "])
def test_duplicate_name(client, name):
    post_service(client, name="Tax office")
    response = client.post("/admin/services", json={"name": name}, headers=admin_headers())
    assert errors(response) == (400, [("BadRequestError", f"Service name '{name.strip()}' already exists")])


@pytest.mark.parametrize("body, messages", [
    ({}, ["name is a required property"]),
    ({"name": "  "}, ["name cannot be blank"]),
    ({"name": "x", "colour": "red"}, ["Additional properties are not allowed (colour was unexpected)"]),
    ({"name": "x", "trial_mode": "yes"}, ["trial_mode yes is not of type boolean"]),
    ({"name": "x", "rate_limit": 0}, ["rate_limit 0 is less than the minimum of 1"]),
    ({"name": "x", "sms_daily_limit": -1}, ["sms_daily_limit -1 is less than the minimum of 0"]),
    ({"name": "x", "permissions": ["email", "fax"]},
     ["permissions fax is not one of [email, sms, letter, international_sms, inbound_sms, upload_document]"]),
    ({"name": "x", "data_retention_days": {"sms": 3651}},
     ["data_retention_days 3651 is greater than the maximum of 3650"]),
    ({"name": "x", "data_retention_days": {"fax": 3}},
     ["data_retention_days Additional properties are not allowed (fax was unexpected)"]),
    ({"rate_limit": "many", "active": 1},
     ["name is a required property", "active 1 is not of type boolean", "rate_limit many is not of type integer"]),
])
def test_create_validation(client, body, messages):
    response = client.post("/admin/services", json=body, headers=admin_headers())
    assert errors(response) == (400, [("ValidationError", m) for m in messages])


def test_malformed_json(client):
    response = client.post("/admin/services", data="{nope", headers=admin_headers())
    assert errors(response) == (400, [("BadRequestError", "Invalid JSON supplied in POST data")])


def test_list_and_get(client):
    first = post_service(client, name="First")
    second = post_service(client, name="Second")
    listed = client.get("/admin/services", headers=admin_headers())
    assert listed.status_code == 200
    assert [s["id"] for s in listed.get_json()["services"]] == [first["id"], second["id"]]
    one = client.get(f"/admin/services/{second['id']}", headers=admin_headers())
    assert one.status_code == 200
    assert one.get_json() == second


def test_unknown_and_malformed_service_ids(client):
    unknown = client.get(f"/admin/services/{uuid.uuid4()}", headers=admin_headers())
    assert errors(unknown) == (404, [("NoResultFound", "No result found")])
    malformed = client.get("/admin/services/not-a-uuid", headers=admin_headers())
    assert errors(malformed) == (400, [("ValidationError", "service_id is not a valid UUID")])
    patch = client.patch(f"/admin/services/{uuid.uuid4()}", json={"active": False}, headers=admin_headers())
    assert errors(patch) == (404, [("NoResultFound", "No result found")])


def test_patch_every_setting(client):
    service = post_service(client, name="Old name")
    changes = {
        "name": "New name", "trial_mode": False, "active": False, "rate_limit": 10,
        "sms_daily_limit": 1, "email_daily_limit": 2, "letter_daily_limit": 3,
        "international_sms_daily_limit": 4, "permissions": ["letter", "inbound_sms"],
        "file_download_contact": "https://example.nl/contact",
    }
    response = client.patch(f"/admin/services/{service['id']}", json=changes, headers=admin_headers())
    assert response.status_code == 200
    body = response.get_json()
    assert {k: body[k] for k in changes} == changes
    assert ISO.match(body["updated_at"])
    assert body["created_at"] == service["created_at"]
    stored = Service.get_by_id(service["id"])
    assert (stored.name, stored.trial_mode, stored.active, stored.permissions) == (
        "New name", False, False, ["letter", "inbound_sms"])


def test_patch_retention_partially(client):
    service = post_service(client)
    url = f"/admin/services/{service['id']}"
    client.patch(url, json={"data_retention_days": {"sms": 3}}, headers=admin_headers())
    response = client.patch(url, json={"data_retention_days": {"letter": 3650}}, headers=admin_headers())
    assert response.get_json()["data_retention_days"] == {"email": 7, "sms": 3, "letter": 3650}
    assert Service.get_by_id(service["id"]).retention_days("sms") == 3


def test_patch_clears_file_download_contact(client):
    service = post_service(client, file_download_contact="help@example.nl")
    response = client.patch(f"/admin/services/{service['id']}", json={"file_download_contact": None},
                            headers=admin_headers())
    assert response.get_json()["file_download_contact"] is None


def test_patch_validation(client):
    service = post_service(client)
    response = client.patch(f"/admin/services/{service['id']}",
                            json={"data_retention_days": {"email": 0}, "id": "x"}, headers=admin_headers())
    assert errors(response) == (400, [
        ("ValidationError", "Additional properties are not allowed (id was unexpected)"),
        ("ValidationError", "data_retention_days 0 is less than the minimum of 1"),
    ])


def test_patch_to_a_taken_name(client):
    post_service(client, name="Taken")
    service = post_service(client, name="Mine")
    url = f"/admin/services/{service['id']}"
    response = client.patch(url, json={"name": "taken"}, headers=admin_headers())
    assert errors(response) == (400, [("BadRequestError", "Service name 'taken' already exists")])
    # Keeping its own name (in another case) is not a clash with itself.
    assert client.patch(url, json={"name": "MINE"}, headers=admin_headers()).get_json()["name"] == "MINE"


def test_wrong_method(client):
    response = client.put("/admin/services", json={}, headers=admin_headers())
    assert errors(response)[0] == 405


def test_a_services_time_zone_is_an_iana_name(client):
    service = post_service(client)
    assert service["time_zone"] == "Europe/Amsterdam"
    url = f"/admin/services/{service['id']}"
    assert client.patch(url, json={"time_zone": "America/Curacao"}, headers=admin_headers()).get_json()[
        "time_zone"] == "America/Curacao"
    refused = client.patch(url, json={"time_zone": "Mars/Olympus_Mons"}, headers=admin_headers())
    assert refused.status_code == 400
    assert refused.get_json()["errors"] == [
        {"error": "ValidationError", "message": "time_zone Mars/Olympus_Mons is not a time zone"}]
    assert Service.get_by_id(service["id"]).time_zone == "America/Curacao"
