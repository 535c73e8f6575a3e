from __future__ import annotations

from typing import Any

from flask import Response, g, jsonify

from api.errors import BadRequestError, NoResultFound
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from api.v2 import v2_blueprint
from api.v2.template.template_schemas import preview_request, preview_response, template_path
from models.appearance import appearance_of
from models.service import Service
from models.template import TemplateVersion, find_version
from pipeline.branding.email import brand_view
from pipeline.rendering import missing_personalisation, render


def _email_dress(service: Service, template_type: str) -> dict[str, Any]:
    """An email's HTML in the service's language and brand, as its recipients would get it."""
    if template_type != "email":
        return {}
    appearance = appearance_of(service.id)
    return {"language": appearance.language, "service_name": service.name,
            "brand": brand_view(appearance.email_brand)}


def preview(service: Service, version: TemplateVersion, values: dict[str, Any]) -> dict[str, Any]:
    """The version filled in with values, as the API's preview answers (the console shows the same)."""
    template_type = version.template.template_type
    missing = missing_personalisation(version.content_texts(), values)
    if missing:
        raise BadRequestError(f"Missing personalisation: {', '.join(missing)}")
    rendered = render(template_type, version.body, version.subject, values, **_email_dress(service, template_type))
    return {
        "id": str(version.template.id),
        "type": template_type,
        "version": version.version,
        "body": rendered.body,
        "subject": rendered.subject if template_type != "sms" else None,
        "postage": version.postage if template_type == "letter" else None,
        "html": rendered.html if template_type == "email" else None,
    }


@v2_blueprint.post("/template/<template_id>/preview")
@documented("A template's latest version filled in with personalisation.", {200: preview_response},
            body=preview_request, path={"template_id": template_path["properties"]["id"]})
def preview_template(template_id: str) -> Response:
    validate(template_path, {"id": template_id})
    body = validate(preview_request, json_body())
    version = find_version(g.caller.service, template_id)
    if version is None:
        raise NoResultFound("No Result Found")
    return jsonify(preview(g.caller.service, version, body.get("personalisation") or {}))
