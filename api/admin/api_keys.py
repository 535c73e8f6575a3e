"""API keys of a service: create (the only time the secret is shown), list, revoke, rotate."""
from __future__ import annotations

import datetime
from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from core.keys import create_key, list_keys, revoke_key, rotate_key
from core.services import find_service
from models.api_key import ApiKey
from pipeline.domain.formatting import iso


def api_key_json(key: ApiKey) -> dict[str, Any]:
    """A key as listed: never its secret, which only the answer to its creation shows."""
    return {
        "id": str(key.id),
        "name": key.name,
        "key_type": key.key_type,
        "created_at": iso(key.created_at),
        "created_by": key.created_by,
        "last_used_at": iso(key.last_used_at),
        "revoked_at": iso(key.revoked_at),
        "expires_at": iso(key.expires_at),
    }


def created_key_json(key: ApiKey, secret: str) -> dict[str, Any]:
    return {"id": str(key.id), "name": key.name, "key_type": key.key_type, "key": secret,
            "created_at": iso(key.created_at), "created_by": key.created_by, "expires_at": iso(key.expires_at)}


def _expiry(data: dict[str, Any]) -> datetime.datetime | None:
    value = data.get("expires_at")
    return None if value is None else admin_schemas.parse_datetime(value)


@admin_blueprint.post("/services/<service_id>/api-keys")
@documented("Create an API key; the only answer that shows its secret.", {201: responses.created_api_key},
            body=admin_schemas.create_api_key,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_api_key(service_id: str) -> tuple[Response, int]:
    find_service(service_id)
    data = validate(admin_schemas.create_api_key, json_body())
    key, secret = create_key(service_id, name=data["name"], key_type=data["key_type"], expires_at=_expiry(data))
    return jsonify(created_key_json(key, secret)), 201


@admin_blueprint.get("/services/<service_id>/api-keys")
@documented("The service's API keys, without their secrets.", {200: responses.api_keys},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_api_keys(service_id: str) -> Response:
    return jsonify({"api_keys": [api_key_json(key) for key in list_keys(service_id)]})


@admin_blueprint.delete("/services/<service_id>/api-keys/<key_id>")
@documented("Revoke an API key.", {200: responses.api_key}, path={
    **admin_schemas.service_path["properties"], **admin_schemas.api_key_path["properties"]})
def delete_api_key(service_id: str, key_id: str) -> Response:
    return jsonify(api_key_json(revoke_key(service_id, key_id)))


@admin_blueprint.post("/services/<service_id>/api-keys/<key_id>/rotate")
@documented("Replace a key by a new one of the same name and type (its secret shown this once); the old key "
            "keeps working for overlap_seconds, never longer than it would have.",
            {201: responses.rotated_api_key}, body=admin_schemas.rotate_api_key, path={
                **admin_schemas.service_path["properties"], **admin_schemas.api_key_path["properties"]})
def post_rotate_api_key(service_id: str, key_id: str) -> tuple[Response, int]:
    find_service(service_id)
    data = validate(admin_schemas.rotate_api_key, json_body())
    old, new, secret = rotate_key(service_id, key_id, overlap=datetime.timedelta(seconds=data["overlap_seconds"]),
                                  expires_at=_expiry(data))
    return jsonify({"old_key": api_key_json(old), "new_key": created_key_json(new, secret)}), 201
