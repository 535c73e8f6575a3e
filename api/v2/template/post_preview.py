from __future__ import annotations

from flask import Response, g, jsonify

from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from api.v2.blueprint import v2_blueprint
from api.v2.template.serialise import preview_json
from api.v2.template.template_schemas import preview_request, preview_response, template_path
from core.preview import preview
from core.template_versions import version_or_404


@v2_blueprint.post("/template/<template_id>/preview")
@documented("A template's latest version filled in with personalisation.", {200: preview_response},
            body=preview_request, path={"template_id": template_path["properties"]["id"]})
def preview_template(template_id: str) -> Response:
    validate(template_path, {"id": template_id})
    body = validate(preview_request, json_body())
    version = version_or_404(g.caller.service, template_id)
    return jsonify(preview_json(preview(g.caller.service, version, body.get("personalisation") or {})))
