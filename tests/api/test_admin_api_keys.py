"""API keys through the admin API, checked by using them on the v2 API."""
from __future__ import annotations

import uuid

import pytest

from models.api_key import ApiKey
from tests.admin_helpers import admin_headers, errors, post_key, post_service, service_headers


@pytest.fixture
def service(client):
    return post_service(client)


@pytest.mark.parametrize("key_type", ["live", "team", "test"])
def test_create_key(client, service, key_type):
    body = post_key(client, service["id"], key_type=key_type, name="main")
    assert set(body) == {"id", "name", "key_type", "key", "created_at", "created_by", "expires_at"}
    assert body["created_by"] == "notify-admin"  # the admin client made it
    assert (body["name"], body["key_type"]) == ("main", key_type)
    name, service_id, secret = body["key"][:4], body["key"][5:41], body["key"][42:]
    assert (name, service_id) == ("main", service["id"])
    assert uuid.UUID(secret)
    # The secret is stored encrypted, never as it was shown.
    assert secret not in ApiKey.get_by_id(body["id"]).secret_encrypted


def test_the_key_works_on_the_v2_api(client, service):
    key = post_key(client, service["id"], name="with-dashes in-name")["key"]
    response = client.get("/v2/templates", headers=service_headers(key))
    assert response.status_code == 200


@pytest.mark.parametrize("body, messages", [
    ({}, ["key_type is a required property", "name is a required property"]),
    ({"name": "k", "key_type": "admin"}, ["key_type admin is not one of [live, team, test]"]),
    ({"name": "", "key_type": "live"}, ["name cannot be blank"]),
    ({"name": "k", "key_type": "live", "secret": "x"},
     ["Additional properties are not allowed (secret was unexpected)"]),
])
def test_create_validation(client, service, body, messages):
    response = client.post(f"/admin/services/{service['id']}/api-keys", json=body, headers=admin_headers())
    assert errors(response) == (400, [("ValidationError", m) for m in messages])


def test_create_for_unknown_service(client):
    response = client.post(f"/admin/services/{uuid.uuid4()}/api-keys", json={"name": "k", "key_type": "live"},
                           headers=admin_headers())
    assert errors(response) == (404, [("NoResultFound", "No result found")])


def test_list_never_shows_secrets(client, service):
    first = post_key(client, service["id"], name="first")
    second = post_key(client, service["id"], name="second", key_type="test")
    response = client.get(f"/admin/services/{service['id']}/api-keys", headers=admin_headers())
    assert response.status_code == 200
    assert response.get_json() == {"api_keys": [
        {"id": first["id"], "name": "first", "key_type": "live", "created_at": first["created_at"],
         "created_by": "notify-admin", "last_used_at": None, "revoked_at": None,
         "expires_at": None},
        {"id": second["id"], "name": "second", "key_type": "test", "created_at": second["created_at"],
         "created_by": "notify-admin", "last_used_at": None, "revoked_at": None,
         "expires_at": None},
    ]}
    assert first["key"][-36:] not in response.get_data(as_text=True)


def test_revoke(client, service):
    created = post_key(client, service["id"])
    url = f"/admin/services/{service['id']}/api-keys/{created['id']}"
    response = client.delete(url, headers=admin_headers())
    assert response.status_code == 200
    body = response.get_json()
    assert body["id"] == created["id"] and body["revoked_at"] is not None
    # Revoking again is harmless and keeps the first revocation time.
    again = client.delete(url, headers=admin_headers())
    assert again.status_code == 200 and again.get_json()["revoked_at"] == body["revoked_at"]
    listed = client.get(f"/admin/services/{service['id']}/api-keys", headers=admin_headers()).get_json()
    assert listed["api_keys"][0]["revoked_at"] == body["revoked_at"]


def test_a_revoked_key_is_refused_by_the_v2_api(client, service):
    created = post_key(client, service["id"])
    assert client.get("/v2/templates", headers=service_headers(created["key"])).status_code == 200
    client.delete(f"/admin/services/{service['id']}/api-keys/{created['id']}", headers=admin_headers())
    response = client.get("/v2/templates", headers=service_headers(created["key"]))
    assert errors(response) == (403, [("AuthError", "Invalid token: API key revoked")])


def test_revoke_a_key_of_another_service(client, service):
    other = post_service(client, name="Other")
    key = post_key(client, other["id"])
    response = client.delete(f"/admin/services/{service['id']}/api-keys/{key['id']}", headers=admin_headers())
    assert errors(response) == (404, [("NoResultFound", "No result found")])
    assert ApiKey.get_by_id(key["id"]).revoked_at is None


def test_revoke_malformed_key_id(client, service):
    response = client.delete(f"/admin/services/{service['id']}/api-keys/123", headers=admin_headers())
    assert errors(response) == (400, [("ValidationError", "key_id is not a valid UUID")])
