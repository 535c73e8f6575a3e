"""API keys of a service: create (the only time the secret is shown), list, revoke."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.admin.services import find_service
from api.errors import NoResultFound
from pipeline.formatting import iso
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from models import audit
from models.api_key import ApiKey, create_api_key, revoke_api_key
from models.db import database


def api_key_json(key: ApiKey) -> dict[str, Any]:
    """A key as listed: never its secret, which is only returned by create_key."""
    return {
        "id": str(key.id),
        "name": key.name,
        "key_type": key.key_type,
        "created_at": iso(key.created_at),
        "created_by": key.created_by,
        "last_used_at": iso(key.last_used_at),
        "revoked_at": iso(key.revoked_at),
    }


def create_key(service_id: str, data: Any) -> dict[str, Any]:
    service = find_service(service_id)
    validate(admin_schemas.create_api_key, data)
    with database.atomic():
        key, full_key = create_api_key(service, name=data["name"], key_type=data["key_type"],
                                       created_by=audit.current_actor().name)
        audit.record(service.id, "api_key.create", subject_id=key.id,
                     after={"name": key.name, "key_type": key.key_type})
    return {"id": str(key.id), "name": key.name, "key_type": key.key_type, "key": full_key,
            "created_at": iso(key.created_at), "created_by": key.created_by}


def list_keys(service_id: str) -> dict[str, Any]:
    service = find_service(service_id)
    keys = ApiKey.select().where(ApiKey.service == service).order_by(ApiKey.created_at, ApiKey.name)
    return {"api_keys": [api_key_json(key) for key in keys]}


def revoke_key(service_id: str, key_id: str) -> dict[str, Any]:
    """Revoke a key of this service; revoking again keeps the first revocation time."""
    service = find_service(service_id)
    validate(admin_schemas.api_key_path, {"key_id": key_id})
    key = ApiKey.get_or_none((ApiKey.id == key_id) & (ApiKey.service == service))
    if key is None:
        raise NoResultFound()
    if key.revoked_at is None:
        with database.atomic():
            revoke_api_key(key)
            audit.record(service.id, "api_key.revoke", subject_id=key.id,
                         before={"name": key.name, "revoked_at": None},
                         after={"name": key.name, "revoked_at": key.revoked_at})
    return api_key_json(key)


@admin_blueprint.post("/services/<service_id>/api-keys")
@documented("Create an API key; the only answer that shows its secret.", {201: responses.created_api_key},
            body=admin_schemas.create_api_key, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_api_key(service_id: str) -> tuple[Response, int]:
    return jsonify(create_key(service_id, json_body())), 201


@admin_blueprint.get("/services/<service_id>/api-keys")
@documented("The service's API keys, without their secrets.", {200: responses.api_keys}, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_api_keys(service_id: str) -> Response:
    return jsonify(list_keys(service_id))


@admin_blueprint.delete("/services/<service_id>/api-keys/<key_id>")
@documented("Revoke an API key.", {200: responses.api_key}, path={
    **admin_schemas.service_path["properties"], **admin_schemas.api_key_path["properties"]})
def delete_api_key(service_id: str, key_id: str) -> Response:
    return jsonify(revoke_key(service_id, key_id))
