from __future__ import annotations

from flask import Response, g, jsonify

from api.openapi import documented
from api.schema import validate
from api.v2.blueprint import v2_blueprint
from api.v2.template.serialise import template_json
from api.v2.template.template_schemas import template_path, template_response
from core.template_versions import version_or_404


def _found(template_id: str, version: int | None) -> Response:
    validate(template_path, {"id": template_id} if version is None else {"id": template_id, "version": version})
    return jsonify(template_json(version_or_404(g.caller.service, template_id, version)))


@v2_blueprint.get("/template/<template_id>")
@documented("A template's latest version.", {200: template_response},
            path={"template_id": template_path["properties"]["id"]})
def get_template(template_id: str) -> Response:
    return _found(template_id, None)


@v2_blueprint.get("/template/<template_id>/version/<int(signed=True):version>")
@v2_blueprint.get("/template/<template_id>/<int(signed=True):version>")  # the shape of template.uri
@documented("One version of a template.", {200: template_response},
            path={"template_id": template_path["properties"]["id"], "version": template_path["properties"]["version"]})
def get_template_version(template_id: str, version: int) -> Response:
    return _found(template_id, version)
