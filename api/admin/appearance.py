"""What a service's recipients see: its language and brands, and previews of its emails and letters.

GET/PATCH /admin/services/<id>/appearance sets the language ("nl" default, "en") and points the
service at an email brand and a letter brand (shared by every service that points at them).
Previews answer with what a recipient would get: the email's HTML document, or the letter's PDF.
"""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

from api.admin import admin_blueprint, admin_schemas, brand_schemas
from api.admin.brands import find_brand
from api.admin.services import find_service
from api.admin.templates import find_latest
from api.errors import BadRequestError, ValidationError
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from models import audit
from models.appearance import Appearance, EmailBrand, LetterBrand, appearance_of, set_appearance
from models.db import database, utcnow
from pipeline.branding.email import brand_view
from pipeline.i18n import N_, translator
from pipeline.letters.compose import letter_date, preview_letter
from pipeline.letters.pdf import LetterLayoutError, render_letter_pdf
from pipeline.letters.letterhead import LetterLogo
from pipeline.rendering import render

SAMPLE_SUBJECT = N_("Example message")
SAMPLE_BODY = N_("This is what your recipients will see.")
SAMPLE_ADDRESS = ["A. Voorbeeld", "Voorbeeldstraat 1", "1234 AB Voorbeeldstad"]


def appearance_json(appearance: Appearance) -> dict[str, Any]:
    return {"language": appearance.language,
            "email_brand_id": str(appearance.email_brand.id) if appearance.email_brand else None,
            "letter_brand_id": str(appearance.letter_brand.id) if appearance.letter_brand else None}


def _brand_or_none(model: type[EmailBrand] | type[LetterBrand], brand_id: str | None, field: str) -> Any:
    if brand_id is None:
        return None
    brand = model.get_or_none(model.id == brand_id)
    if brand is None:
        raise ValidationError(f"{field} is not {'an email' if model is EmailBrand else 'a letter'} brand")
    return brand


def change_appearance(service_id: str, data: Any) -> dict[str, Any]:
    service = find_service(service_id)
    validate(brand_schemas.update_appearance, data)
    changes: dict[str, Any] = {}
    if "language" in data:
        changes["language"] = data["language"]
    if "email_brand_id" in data:
        changes["email_brand"] = _brand_or_none(EmailBrand, data["email_brand_id"], "email_brand_id")
    if "letter_brand_id" in data:
        changes["letter_brand"] = _brand_or_none(LetterBrand, data["letter_brand_id"], "letter_brand_id")
    before = appearance_json(appearance_of(service.id))
    with database.atomic():
        set_appearance(service, **changes)
        after = appearance_json(appearance_of(service.id))
        old, new = audit.differences(before, after)
        if new:
            audit.record(service.id, "service.appearance", before=old, after=new)
    return after


def preview_template(service_id: str, template_id: str, data: Any) -> Response:
    service = find_service(service_id)
    version = find_latest(service, template_id)
    values = validate(brand_schemas.template_preview, data).get("personalisation") or {}
    appearance = appearance_of(service.id)
    kind = version.template.template_type
    if kind == "email":
        html = render("email", version.body, version.subject, values, language=appearance.language,
                      service_name=service.name, brand=brand_view(appearance.email_brand)).html
        return Response(html, mimetype="text/html")
    if kind == "letter":
        try:
            pdf = preview_letter(version, values, appearance=appearance, sender=service.name, now=utcnow())
        except LetterLayoutError as error:
            raise BadRequestError(str(error)) from None
        return Response(pdf.data, mimetype="application/pdf")
    raise BadRequestError("Only email and letter templates have a preview here")


def sample_email(language: str, brand: EmailBrand | None, service_name: str) -> str:
    """A short sample email in the language and brand, for choosing them (console and admin API)."""
    words = translator(language)
    return render("email", words.gettext(SAMPLE_BODY), words.gettext(SAMPLE_SUBJECT), {}, language=words.language,
                  service_name=service_name, brand=brand_view(brand)).html


def sample_letter(language: str, brand: LetterBrand | None, sender: str) -> bytes:
    """A short sample letter in the language, with the brand's logo."""
    words = translator(language)
    logo = LetterLogo(bytes(brand.logo_png), brand.logo_width, brand.logo_height) if brand else None
    return render_letter_pdf(
        address_lines=SAMPLE_ADDRESS, subject=words.gettext(SAMPLE_SUBJECT), body=words.gettext(SAMPLE_BODY),
        contact_block=sender, date=letter_date(utcnow()), language=words.language, logo=logo, sender=sender,
    ).data


def _language() -> str:
    return validate(brand_schemas.preview_query, dict(request.args)).get("language", "nl")


@admin_blueprint.get("/services/<service_id>/appearance")
@documented("The service's language and brands.", {200: brand_schemas.appearance_response}, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_appearance(service_id: str) -> Response:
    return jsonify(appearance_json(appearance_of(find_service(service_id).id)))


@admin_blueprint.patch("/services/<service_id>/appearance")
@documented("Set the service's language and brands.", {200: brand_schemas.appearance_response},
            body=brand_schemas.update_appearance, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def patch_appearance(service_id: str) -> Response:
    return jsonify(change_appearance(service_id, json_body()))


@admin_blueprint.post("/services/<service_id>/templates/<template_id>/preview")
@documented("An email template as its HTML document or a letter template as its PDF.", {200: brand_schemas.HTML},
            media_type="text/html", body=brand_schemas.template_preview,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"],
                  "template_id": admin_schemas.template_path["properties"]["template_id"]})
def post_template_preview(service_id: str, template_id: str) -> Response:
    return preview_template(service_id, template_id, json_body())


@admin_blueprint.get("/email-brands/<brand_id>/preview")
@documented("A sample email with the brand.", {200: brand_schemas.HTML}, media_type="text/html", query=brand_schemas.preview_query,
            path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_email_brand_preview(brand_id: str) -> Response:
    brand = find_brand(EmailBrand, brand_id)
    return Response(sample_email(_language(), brand, brand.name), mimetype="text/html")


@admin_blueprint.get("/letter-brands/<brand_id>/preview")
@documented("A sample letter with the brand's logo.", {200: brand_schemas.PDF}, media_type="application/pdf",
            query=brand_schemas.preview_query, path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_letter_brand_preview(brand_id: str) -> Response:
    brand = find_brand(LetterBrand, brand_id)
    return Response(sample_letter(_language(), brand, brand.name), mimetype="application/pdf")
