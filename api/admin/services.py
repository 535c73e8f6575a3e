"""Services: create, list, read and change every setting.

The plain functions below are the operations; the routes and the operator CLI both call them, so
validation and defaults live in one place.
"""
from __future__ import annotations

from typing import Any

import peewee
from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.errors import BadRequestError, NoResultFound
from pipeline.formatting import iso
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from models import audit
from models.db import database, utcnow
from models.service import CHANNELS, Service, find_service_by_name

# Settings copied one to one from the request onto the model.
_PLAIN_SETTINGS = ("trial_mode", "active", "rate_limit", "sms_daily_limit", "email_daily_limit",
                   "letter_daily_limit", "international_sms_daily_limit", "permissions",
                   "file_download_contact", "hosted_unsubscribe")


def find_service(service_id: str) -> Service:
    """The service named in a path: 400 for a malformed id, 404 for an unknown one."""
    validate(admin_schemas.service_path, {"service_id": service_id})
    service = Service.get_or_none(Service.id == service_id)
    if service is None:
        raise NoResultFound()
    return service


def service_json(service: Service) -> dict[str, Any]:
    return {
        "id": str(service.id),
        "name": service.name,
        "active": service.active,
        "trial_mode": service.trial_mode,
        "permissions": list(service.permissions or []),
        "rate_limit": service.rate_limit,
        "sms_daily_limit": service.sms_daily_limit,
        "email_daily_limit": service.email_daily_limit,
        "letter_daily_limit": service.letter_daily_limit,
        "international_sms_daily_limit": service.international_sms_daily_limit,
        "data_retention_days": {channel: service.retention_days(channel) for channel in CHANNELS},
        "file_download_contact": service.file_download_contact,
        "hosted_unsubscribe": service.hosted_unsubscribe,
        "created_at": iso(service.created_at),
        "updated_at": iso(service.updated_at),
    }


def _apply(service: Service, data: dict[str, Any]) -> None:
    if "name" in data:
        service.name = data["name"].strip()
    for field in _PLAIN_SETTINGS:
        if field in data:
            setattr(service, field, data[field])
    for channel, days in data.get("data_retention_days", {}).items():
        setattr(service, f"{channel}_retention_days", days)


def _audited(service: Service) -> dict[str, Any]:
    # What the history shows of a service: its settings, not its timestamps.
    values = service_json(service)
    for field in ("id", "created_at", "updated_at"):
        values.pop(field)
    return values


def _save(service: Service, *, insert: bool, before: dict[str, Any] | None) -> None:
    """Save and record the change, refusing a name another service already has (checked first for
    the message, and caught from the unique index for two requests racing)."""
    duplicate = BadRequestError(f"Service name '{service.name}' already exists")
    if find_service_by_name(service.name, excluding=None if insert else service) is not None:
        raise duplicate
    try:
        with database.atomic():
            service.save(force_insert=insert)
            if before is None:
                audit.record(service.id, "service.create", after=_audited(service))
            else:
                old, new = audit.differences(before, _audited(service))
                if new:
                    audit.record(service.id, "service.update", before=old, after=new)
    except peewee.IntegrityError:
        raise duplicate from None


def create_service(data: Any) -> dict[str, Any]:
    """A new service; it starts in trial mode unless the data says otherwise."""
    validate(admin_schemas.create_service, data)
    service = Service()
    _apply(service, data)
    _save(service, insert=True, before=None)
    return service_json(service)


def update_service(service_id: str, data: Any) -> dict[str, Any]:
    service = find_service(service_id)
    validate(admin_schemas.update_service, data)
    before = _audited(service)
    _apply(service, data)
    service.updated_at = utcnow()
    _save(service, insert=False, before=before)
    return service_json(service)


def list_services() -> dict[str, Any]:
    services = Service.select().order_by(Service.created_at, Service.name)
    return {"services": [service_json(service) for service in services]}


@admin_blueprint.post("/services")
@documented("Create a service (in trial mode unless told otherwise).", {201: responses.service},
            body=admin_schemas.create_service)
def post_service() -> tuple[Response, int]:
    return jsonify(create_service(json_body())), 201


@admin_blueprint.get("/services")
@documented("Every service.", {200: responses.services})
def get_services() -> Response:
    return jsonify(list_services())


@admin_blueprint.get("/services/<service_id>")
@documented("One service.", {200: responses.service}, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_service(service_id: str) -> Response:
    return jsonify(service_json(find_service(service_id)))


@admin_blueprint.patch("/services/<service_id>")
@documented("Change a service's settings (only those given).", {200: responses.service},
            body=admin_schemas.update_service, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def patch_service(service_id: str) -> Response:
    return jsonify(update_service(service_id, json_body()))
