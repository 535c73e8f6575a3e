"""What a service's recipients see: its language and brands, and previews of its emails and letters.

GET/PATCH /admin/services/<id>/appearance sets the language ("nl" default, "en") and points the
service at an email brand and a letter brand (shared by every service that points at them).
Previews answer with what a recipient would get: the email's HTML document, or the letter's PDF.
The rules and the rendering are core/appearance.py's; here are the routes and their schemas.
"""
from __future__ import annotations

from flask import Response, jsonify, request

from api.admin import admin_schemas, brand_schemas
from api.admin.blueprint import admin_blueprint
from api.admin.brands import brand_from_path
from api.admin.templates import template_from_path
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from core.appearance import appearance_values, change_appearance, preview_template, sample_email, sample_letter
from core.services import find_service
from models.appearance import EmailBrand, LetterBrand, appearance_of


def _language() -> str:
    return validate(brand_schemas.preview_query, dict(request.args)).get("language", "nl")


@admin_blueprint.get("/services/<service_id>/appearance")
@documented("The service's language and brands.", {200: brand_schemas.appearance_response},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_appearance(service_id: str) -> Response:
    return jsonify(appearance_values(appearance_of(find_service(service_id).id)))


@admin_blueprint.patch("/services/<service_id>/appearance")
@documented("Set the service's language and brands.", {200: brand_schemas.appearance_response},
            body=brand_schemas.update_appearance,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def patch_appearance(service_id: str) -> Response:
    find_service(service_id)  # an unknown service is a 404 before its body is looked at
    changes = validate(brand_schemas.update_appearance, json_body())
    return jsonify(appearance_values(change_appearance(service_id, **changes)))


@admin_blueprint.post("/services/<service_id>/templates/<template_id>/preview")
@documented("An email template as its HTML document or a letter template as its PDF.", {200: brand_schemas.HTML},
            media_type="text/html", body=brand_schemas.template_preview,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"],
                  "template_id": admin_schemas.template_path["properties"]["template_id"]})
def post_template_preview(service_id: str, template_id: str) -> Response:
    template_from_path(service_id, template_id)
    values = validate(brand_schemas.template_preview, json_body()).get("personalisation") or {}
    preview = preview_template(service_id, template_id, values)
    return Response(preview.content, mimetype=preview.media_type)


@admin_blueprint.get("/email-brands/<brand_id>/preview")
@documented("A sample email with the brand.", {200: brand_schemas.HTML}, media_type="text/html",
            query=brand_schemas.preview_query, path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_email_brand_preview(brand_id: str) -> Response:
    brand = brand_from_path(EmailBrand, brand_id)
    return Response(sample_email(_language(), brand, brand.name), mimetype="text/html")


@admin_blueprint.get("/letter-brands/<brand_id>/preview")
@documented("A sample letter with the brand's logo.", {200: brand_schemas.PDF}, media_type="application/pdf",
            query=brand_schemas.preview_query, path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_letter_brand_preview(brand_id: str) -> Response:
    brand = brand_from_path(LetterBrand, brand_id)
    return Response(sample_letter(_language(), brand, brand.name), mimetype="application/pdf")
