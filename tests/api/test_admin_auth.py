"""The admin API is guarded by a JWT from the admin client, with the same rules as the v2 API."""
from __future__ import annotations

import pytest

from tests.admin_helpers import admin_headers, admin_token, errors


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_valid_admin_token_is_accepted(client):
    response = client.get("/admin/services", headers=admin_headers())
    assert response.status_code == 200
    assert response.get_json() == {"services": []}


def test_no_header(client):
    assert errors(client.get("/admin/services")) == (
        401, [("AuthError", "Unauthorized: authentication token must be provided")])


def test_not_bearer(client):
    assert errors(client.get("/admin/services", headers={"Authorization": "Basic abc"})) == (
        401, [("AuthError", "Unauthorized: authentication bearer scheme must be used")])


def test_wrong_secret(client):
    response = client.get("/admin/services", headers=_bearer(admin_token(secret="not-the-admin-secret")))
    assert errors(response) == (403, [("AuthError", "Invalid token: signature")])


def test_a_service_key_is_not_an_admin_token(client):
    response = client.get("/admin/services", headers=_bearer(admin_token(issuer="some-service")))
    assert errors(response) == (403, [("AuthError", "Invalid token: client not found")])


@pytest.mark.parametrize("offset", [-31, 31, -3600])
def test_skewed_clock(client, offset):
    response = client.get("/admin/services", headers=_bearer(admin_token(iat_offset=offset)))
    assert errors(response) == (403, [("AuthError", "Error: Your system clock must be accurate to within 30 seconds")])


@pytest.mark.parametrize("offset", [-29, 29])
def test_clock_within_tolerance(client, offset):
    assert client.get("/admin/services", headers=_bearer(admin_token(iat_offset=offset))).status_code == 200


@pytest.mark.parametrize("method, path", [
    ("post", "/admin/services"),
    ("patch", "/admin/services/6a4d2f3e-1b55-4b7e-9d7c-2f0f4f5b1c11"),
    ("post", "/admin/services/6a4d2f3e-1b55-4b7e-9d7c-2f0f4f5b1c11/api-keys"),
    ("delete", "/admin/services/6a4d2f3e-1b55-4b7e-9d7c-2f0f4f5b1c11/api-keys/6a4d2f3e-1b55-4b7e-9d7c-2f0f4f5b1c12"),
    ("post", "/admin/services/6a4d2f3e-1b55-4b7e-9d7c-2f0f4f5b1c11/templates"),
    ("post", "/admin/services/6a4d2f3e-1b55-4b7e-9d7c-2f0f4f5b1c11/sms-senders"),
])
def test_every_route_needs_a_token(client, method, path):
    assert errors(getattr(client, method)(path, json={}))[0] == 401
