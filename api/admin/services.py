"""Services: create, list, read and change every setting (the rules are core.services)."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from core.services import create_service, find_service, list_services, settings_of, update_service
from models.service import Service
from pipeline.domain.formatting import iso


def service_json(service: Service) -> dict[str, Any]:
    return {"id": str(service.id), **settings_of(service),
            "created_at": iso(service.created_at), "updated_at": iso(service.updated_at)}


@admin_blueprint.post("/services")
@documented("Create a service (in trial mode unless told otherwise).", {201: responses.service},
            body=admin_schemas.create_service)
def post_service() -> tuple[Response, int]:
    return jsonify(service_json(create_service(**validate(admin_schemas.create_service, json_body())))), 201


@admin_blueprint.get("/services")
@documented("Every service.", {200: responses.services})
def get_services() -> Response:
    return jsonify({"services": [service_json(service) for service in list_services()]})


@admin_blueprint.get("/services/<service_id>")
@documented("One service.", {200: responses.service},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_service(service_id: str) -> Response:
    return jsonify(service_json(find_service(service_id)))


@admin_blueprint.patch("/services/<service_id>")
@documented("Change a service's settings (only those given).", {200: responses.service},
            body=admin_schemas.update_service,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def patch_service(service_id: str) -> Response:
    find_service(service_id)  # an unknown service is a 404 before its body is looked at
    return jsonify(service_json(update_service(service_id, **validate(admin_schemas.update_service, json_body()))))
