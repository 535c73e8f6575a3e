"""A token's iat must be a finite number within 30 seconds of our clock, on the v2 and admin APIs.

The claims are written as raw JSON text, because NaN, Infinity and 1e400 are what a forger types,
and json.dumps would not produce some of them.
"""
from __future__ import annotations

import json

import jwt
import pytest

from config import get_settings
from tests.responses import error

CLOCK = (403, "AuthError", "Error: Your system clock must be accurate to within 30 seconds")

BAD_IATS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1" + "0" * 400, '"1700000000"',
            '"now"', "true", "null", "[]", "{}"]


def _token(issuer: str, secret: str, iat_json: str) -> str:
    payload = '{"iss": %s, "iat": %s}' % (json.dumps(issuer), iat_json)
    return jwt.api_jws.encode(payload.encode(), secret, algorithm="HS256", headers={"typ": "JWT"})


@pytest.mark.parametrize("iat", BAD_IATS)
def test_v2_refuses_an_iat_that_is_not_a_finite_number(client, service, key, iat):
    token = _token(str(service.id), key[-36:], iat)
    assert error(client.get("/v2/templates", headers={"Authorization": f"Bearer {token}"})) == CLOCK


@pytest.mark.parametrize("iat", BAD_IATS)
def test_admin_refuses_an_iat_that_is_not_a_finite_number(client, iat):
    settings = get_settings()
    token = _token(settings.admin_client_id, settings.admin_client_secret, iat)
    headers = {"Authorization": f"Bearer {token}"}
    # The forged NaN token once created an API key: a write must be refused too, not only a read.
    assert error(client.post("/admin/services", json={"name": "Forged"}, headers=headers)) == CLOCK
    assert error(client.get("/admin/services", headers=headers)) == CLOCK


def test_a_nan_token_is_not_remembered_as_verified(client, service, key):
    # The verified-token memo skips the decode for repeats: a refused token must never get into it.
    token = _token(str(service.id), key[-36:], "NaN")
    for _ in range(2):
        assert error(client.get("/v2/templates", headers={"Authorization": f"Bearer {token}"})) == CLOCK
