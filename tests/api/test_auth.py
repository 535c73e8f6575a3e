"""Authentication of the v2 API: every error text and status of the spec and the wire contract."""
from __future__ import annotations

import time

import jwt
import pytest

from core.tokens import create_token
from models.api_key import ApiKey, revoke_api_key
from tests.factories import create_key, create_service
from tests.responses import error


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_valid_token_is_accepted(client, service, key):
    response = client.get("/v2/templates", headers=_headers(create_token(key[-73:-37], key[-36:])))
    assert response.status_code == 200
    assert response.get_json() == {"templates": []}


def test_no_header(client):
    assert error(client.get("/v2/templates")) == (
        401, "AuthError", "Unauthorized: authentication token must be provided")


def test_not_bearer(client, key):
    response = client.get("/v2/templates", headers={"Authorization": "Basic abc"})
    assert error(response) == (401, "AuthError", "Unauthorized: authentication bearer scheme must be used")


def test_undecodable_token(client):
    assert error(client.get("/v2/templates", headers=_headers("not-a-jwt"))) == (
        403, "AuthError", "Invalid token: signature")


def test_token_without_iss(client):
    token = jwt.encode({"iat": int(time.time())}, "secret", algorithm="HS256")
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Invalid token: iss field not provided")


def test_unknown_service(client):
    token = create_token("6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11", "secret")
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Invalid token: service not found")


def test_wrong_algorithm(client, service, key):
    token = jwt.encode({"iss": str(service.id), "iat": int(time.time())}, key[-36:], algorithm="HS512")
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Invalid token: algorithm used is not HS256")


@pytest.mark.parametrize("skew", [-32, 32, -300, 3600])  # 32: iat is whole seconds, so 31 can land on 30.0
def test_clock_skew_either_way(client, service, key, skew):
    token = jwt.encode({"iss": str(service.id), "iat": int(time.time()) + skew}, key[-36:], algorithm="HS256")
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Error: Your system clock must be accurate to within 30 seconds")


@pytest.mark.parametrize("skew", [-25, 25])
def test_clock_within_tolerance(client, service, key, skew):
    token = jwt.encode({"iss": str(service.id), "iat": int(time.time()) + skew}, key[-36:], algorithm="HS256")
    assert client.get("/v2/templates", headers=_headers(token)).status_code == 200


def test_unknown_key(client, service, key):
    token = create_token(str(service.id), "0f5f6a8e-4d1c-4b63-a1c8-2f2b7d4b9a10")
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Invalid token: API key not found")


def test_revoked_key(client, service, key):
    revoke_api_key(ApiKey.get(ApiKey.service == service))
    token = create_token(str(service.id), key[-36:])
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Invalid token: API key revoked")


def test_any_unrevoked_key_of_the_service_works(client, service, key):
    second = create_key(service=service, name="second", key_type="test")
    for secret in (key[-36:], second[-36:]):
        response = client.get("/v2/templates", headers=_headers(create_token(str(service.id), secret)))
        assert response.status_code == 200


def test_another_services_key_does_not_work(client, service, key):
    other = create_service()
    token = create_token(str(other.id), key[-36:])
    create_key(service=other)
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Invalid token: API key not found")


def test_secret_is_not_stored_in_clear(service, key):
    stored = ApiKey.get(ApiKey.service == service)
    assert key[-36:] not in stored.secret_encrypted


def _seen(client, service, key) -> None:
    """A token of the key accepted once: the process now checks the key's new tokens with its
    remembered secret, before the settings are read (api/auth.py)."""
    assert client.get("/v2/templates", headers=_headers(create_token(str(service.id), key[-36:]))).status_code == 200


@pytest.mark.parametrize(("claims", "algorithm", "secret", "refusal"), [
    ({"iat": 0}, "HS256", "key", "Error: Your system clock must be accurate to within 30 seconds"),
    ({"iat": float("nan")}, "HS256", "key", "Error: Your system clock must be accurate to within 30 seconds"),
    ({}, "HS512", "key", "Invalid token: algorithm used is not HS256"),
    ({}, "HS256", "0f5f6a8e-4d1c-4b63-a1c8-2f2b7d4b9a10", "Invalid token: API key not found"),
    ({"aud": "someone"}, "HS256", "key", "Invalid token: signature"),
    ({"jti": 17}, "HS256", "key", "Invalid token: signature"),
])
def test_a_new_token_of_a_key_seen_before_is_checked_in_full(client, service, key, claims, algorithm, secret, refusal):
    _seen(client, service, key)
    token = jwt.encode({"iss": str(service.id), "iat": int(time.time()), **claims},
                       key[-36:] if secret == "key" else secret, algorithm=algorithm)
    assert error(client.get("/v2/templates", headers=_headers(token))) == (403, "AuthError", refusal)


def test_a_new_token_of_a_key_seen_before_and_revoked_or_deleted_is_refused(client, service, key):
    _seen(client, service, key)
    revoke_api_key(ApiKey.get(ApiKey.service == service))
    token = jwt.encode({"iss": str(service.id), "iat": int(time.time()), "jti": "one"}, key[-36:], algorithm="HS256")
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Invalid token: API key revoked")
    ApiKey.delete().where(ApiKey.service == service).execute()
    token = jwt.encode({"iss": str(service.id), "iat": int(time.time()), "jti": "two"}, key[-36:], algorithm="HS256")
    assert error(client.get("/v2/templates", headers=_headers(token))) == (
        403, "AuthError", "Invalid token: API key not found")


def test_new_tokens_with_a_jti_each_are_accepted(client, service, key):
    for jti in ("a", "b"):
        token = jwt.encode({"iss": str(service.id), "iat": int(time.time()), "jti": jti}, key[-36:], algorithm="HS256")
        assert client.get("/v2/templates", headers=_headers(token)).status_code == 200
