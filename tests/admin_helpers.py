"""Helpers for admin API tests: real admin tokens, and services/keys made through the API itself."""
from __future__ import annotations

import time
from typing import Any

import jwt

from config import get_settings
from core.tokens import create_token


def admin_headers() -> dict[str, str]:
    settings = get_settings()
    return {"Authorization": f"Bearer {create_token(settings.admin_client_id, settings.admin_client_secret)}"}


def admin_token(*, issuer: str | None = None, secret: str | None = None, iat_offset: int = 0) -> str:
    """A token with one thing wrong on purpose (issuer, secret or clock)."""
    settings = get_settings()
    return jwt.encode({"iss": issuer or settings.admin_client_id, "iat": int(time.time()) + iat_offset},
                      secret or settings.admin_client_secret, algorithm="HS256", headers={"typ": "JWT"})


def service_headers(key: str) -> dict[str, str]:
    """v2 headers for a full API key string, split the way the official clients split it."""
    return {"Authorization": f"Bearer {create_token(key[-73:-37], key[-36:])}"}


def errors(response: Any) -> tuple[int, list[tuple[str, str]]]:
    """(status, [(error, message), ...]) after checking the body's status_code matches."""
    body = response.get_json()
    assert body["status_code"] == response.status_code
    return response.status_code, [(e["error"], e["message"]) for e in body["errors"]]


def post_service(client: Any, **fields: Any) -> dict[str, Any]:
    response = client.post("/admin/services", json={"name": "Tax office", **fields}, headers=admin_headers())
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def post_key(client: Any, service_id: str, *, key_type: str = "live", name: str = "main") -> dict[str, Any]:
    response = client.post(f"/admin/services/{service_id}/api-keys", json={"name": name, "key_type": key_type},
                           headers=admin_headers())
    assert response.status_code == 201, response.get_json()
    return response.get_json()
