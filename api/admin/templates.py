"""Templates of a service: create, change (each change is a new version), read one, all, versions.

The rules are core/templates.py's; here are the routes, their bodies' schemas and the answers.
Responses use the v2 Template JSON, so what an operator sees here is what the clients will read.
"""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from api.v2.template.serialise import template_json
from core import templates
from core.services import find_service
from models.template import TemplateVersion

_PATH = {**admin_schemas.service_path["properties"], **admin_schemas.template_path["properties"]}


def admin_template_json(version: TemplateVersion) -> dict[str, Any]:
    """The v2 Template plus what only the admin API shows: a letter's languages and English version."""
    result = template_json(version)
    if version.template.template_type == "letter":
        result.update({field: getattr(version, field) for field in templates.BILINGUAL_FIELDS})
        result["letter_languages"] = version.letter_languages or "single"
    return result


def template_from_path(service_id: str, template_id: str) -> TemplateVersion:
    """The template named in a path: the service's problems first, then 400 for a malformed template id,
    404 for an unknown one."""
    service = find_service(service_id)
    validate(admin_schemas.template_path, {"template_id": template_id})
    return templates.find_template(service, template_id)


@admin_blueprint.post("/services/<service_id>/templates")
@documented("Create a template (version 1).", {201: responses.template}, body=admin_schemas.create_template, path=_PATH)
def post_template(service_id: str) -> tuple[Response, int]:
    find_service(service_id)  # an unknown service is a 404 before its body is looked at
    body = dict(validate(admin_schemas.create_template, json_body()))
    return jsonify(admin_template_json(templates.add_template(service_id, template_type=body.pop("type"), **body))), 201


@admin_blueprint.post("/services/<service_id>/templates/<template_id>")
@documented("Change a template: a new version when anything differs.", {200: responses.template},
            body=admin_schemas.update_template, path=_PATH)
def post_template_update(service_id: str, template_id: str) -> Response:
    template_from_path(service_id, template_id)
    body = validate(admin_schemas.update_template, json_body())
    return jsonify(admin_template_json(templates.change_template(service_id, template_id, **body)))


@admin_blueprint.get("/services/<service_id>/templates")
@documented("The service's templates (latest versions).", {200: responses.templates}, path=_PATH)
def get_templates(service_id: str) -> Response:
    return jsonify({"templates": [admin_template_json(row) for row in templates.current_versions(service_id)]})


@admin_blueprint.get("/services/<service_id>/templates/<template_id>")
@documented("A template's latest version.", {200: responses.template}, path=_PATH)
def get_one_template(service_id: str, template_id: str) -> Response:
    return jsonify(admin_template_json(template_from_path(service_id, template_id)))


@admin_blueprint.get("/services/<service_id>/templates/<template_id>/versions")
@documented("Every version of a template, oldest first.", {200: responses.template_versions}, path=_PATH)
def get_template_versions(service_id: str, template_id: str) -> Response:
    template = template_from_path(service_id, template_id).template
    return jsonify({"versions": [admin_template_json(row) for row in templates.all_versions(template)]})
