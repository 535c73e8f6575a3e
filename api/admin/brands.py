"""Email and letter brands: create, change, read, and their logos.

The rules are core/brands.py's; here are the routes, their bodies' schemas and the answers. Logos
travel as base64 in the JSON bodies: decoding them is this door's part.
"""
from __future__ import annotations

import base64
import binascii
from typing import Any

from flask import Response, jsonify

from api.admin import brand_schemas
from api.admin.blueprint import admin_blueprint
from api.errors import ValidationError
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from core.brands import (
    Brand,
    BrandModel,
    BrandT,
    create_email_brand,
    create_letter_brand,
    find_brand,
    update_email_brand,
    update_letter_brand,
)
from models.appearance import EmailBrand, LetterBrand, ServiceAppearance
from pipeline.domain.formatting import iso
from pipeline.stages.email_brand import logo_path


def _decoded(data: dict[str, Any]) -> dict[str, Any]:
    """The body with its base64 logo as bytes."""
    encoded = data.get("logo")
    if encoded is None:
        return data
    try:
        logo = base64.b64decode("".join(encoded.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError("logo is not valid base64") from None
    return {**data, "logo": logo}


def _services_of(model: BrandModel, brand: Brand) -> list[str]:
    column = ServiceAppearance.email_brand if model is EmailBrand else ServiceAppearance.letter_brand
    rows = ServiceAppearance.select(ServiceAppearance.service).where(column == brand.id)
    return sorted(str(row.service_id) for row in rows)


def email_brand_json(brand: EmailBrand) -> dict[str, Any]:
    logo = ({"url": logo_path(brand), "width": brand.logo_width, "height": brand.logo_height}
            if brand.logo_png else None)
    return {"id": str(brand.id), "name": brand.name, "colour": brand.colour, "brand_type": brand.brand_type,
            "logo": logo, "services": _services_of(EmailBrand, brand), "created_at": iso(brand.created_at),
            "updated_at": iso(brand.updated_at)}


def letter_brand_json(brand: LetterBrand) -> dict[str, Any]:
    logo = {"url": f"/admin/letter-brands/{brand.id}/logo.png", "width": brand.logo_width,
            "height": brand.logo_height}
    return {"id": str(brand.id), "name": brand.name, "logo": logo, "services": _services_of(LetterBrand, brand),
            "created_at": iso(brand.created_at), "updated_at": iso(brand.updated_at)}


def brand_from_path(model: type[BrandT], brand_id: str) -> BrandT:
    """The brand named in a path: 400 for a malformed id, 404 for an unknown one."""
    validate(brand_schemas.brand_path, {"brand_id": brand_id})
    return find_brand(model, brand_id)


@admin_blueprint.post("/email-brands")
@documented("Create an email brand (logo as base64 PNG or SVG).", {201: brand_schemas.email_brand_response},
            body=brand_schemas.create_email_brand)
def post_email_brand() -> tuple[Response, int]:
    body = _decoded(validate(brand_schemas.create_email_brand, json_body()))
    return jsonify(email_brand_json(create_email_brand(**body))), 201


@admin_blueprint.get("/email-brands")
@documented("Every email brand.", {200: brand_schemas.email_brands_response})
def get_email_brands() -> Response:
    brands = EmailBrand.select().order_by(EmailBrand.name)
    return jsonify({"email_brands": [email_brand_json(brand) for brand in brands]})


@admin_blueprint.get("/email-brands/<brand_id>")
@documented("One email brand.", {200: brand_schemas.email_brand_response},
            path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_email_brand(brand_id: str) -> Response:
    return jsonify(email_brand_json(brand_from_path(EmailBrand, brand_id)))


@admin_blueprint.patch("/email-brands/<brand_id>")
@documented("Change an email brand (only what is given).", {200: brand_schemas.email_brand_response},
            body=brand_schemas.update_email_brand,
            path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def patch_email_brand(brand_id: str) -> Response:
    brand_from_path(EmailBrand, brand_id)
    body = _decoded(validate(brand_schemas.update_email_brand, json_body()))
    return jsonify(email_brand_json(update_email_brand(brand_id, **body)))


@admin_blueprint.post("/letter-brands")
@documented("Create a letter brand (logo as base64 PNG or SVG).", {201: brand_schemas.letter_brand_response},
            body=brand_schemas.create_letter_brand)
def post_letter_brand() -> tuple[Response, int]:
    body = _decoded(validate(brand_schemas.create_letter_brand, json_body()))
    return jsonify(letter_brand_json(create_letter_brand(**body))), 201


@admin_blueprint.get("/letter-brands")
@documented("Every letter brand.", {200: brand_schemas.letter_brands_response})
def get_letter_brands() -> Response:
    brands = LetterBrand.select().order_by(LetterBrand.name)
    return jsonify({"letter_brands": [letter_brand_json(brand) for brand in brands]})


@admin_blueprint.get("/letter-brands/<brand_id>")
@documented("One letter brand.", {200: brand_schemas.letter_brand_response},
            path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_letter_brand(brand_id: str) -> Response:
    return jsonify(letter_brand_json(brand_from_path(LetterBrand, brand_id)))


@admin_blueprint.patch("/letter-brands/<brand_id>")
@documented("Change a letter brand.", {200: brand_schemas.letter_brand_response},
            body=brand_schemas.update_letter_brand,
            path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def patch_letter_brand(brand_id: str) -> Response:
    brand_from_path(LetterBrand, brand_id)
    body = _decoded(validate(brand_schemas.update_letter_brand, json_body()))
    return jsonify(letter_brand_json(update_letter_brand(brand_id, **body)))


@admin_blueprint.get("/letter-brands/<brand_id>/logo.png")
@documented("The letter brand's stored logo.", {200: brand_schemas.PNG}, media_type="image/png",
            path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_letter_brand_logo(brand_id: str) -> Response:
    brand = brand_from_path(LetterBrand, brand_id)
    return Response(bytes(brand.logo_png), mimetype="image/png")
