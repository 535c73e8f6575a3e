"""Email and letter brands: create, change, read, and their logos.

A brand is its own record, so the services of one organisation share it by pointing at it
(api/admin/appearance.py). The functions are the operations; routes, CLI and console call them.
"""
from __future__ import annotations

import base64
import binascii
from typing import Any

import peewee
from flask import Response, jsonify

from api.admin import admin_blueprint, brand_schemas
from api.errors import BadRequestError, NoResultFound, ValidationError
from pipeline.formatting import iso
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from models.appearance import EmailBrand, LetterBrand, ServiceAppearance
from models.db import database, utcnow
from pipeline.branding.email import logo_path
from pipeline.branding.logos import Logo, LogoError, process_logo

BrandModel = type[EmailBrand] | type[LetterBrand]


def _logo(encoded: str) -> Logo:
    try:
        data = base64.b64decode("".join(encoded.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError("logo is not valid base64") from None
    try:
        return process_logo(data)
    except LogoError as error:
        raise ValidationError(str(error)) from None


def _services_of(model: BrandModel, brand: EmailBrand | LetterBrand) -> list[str]:
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


def find_brand(model: BrandModel, brand_id: str) -> EmailBrand | LetterBrand:
    validate(brand_schemas.brand_path, {"brand_id": brand_id})
    brand = model.get_or_none(model.id == brand_id)
    if brand is None:
        raise NoResultFound()
    return brand


def _apply(brand: EmailBrand | LetterBrand, data: dict[str, Any]) -> None:
    for field in ("name", "colour", "brand_type"):
        if field in data:
            setattr(brand, field, data[field].strip() if field == "name" else data[field])
    if "logo" in data:
        if data["logo"] is None:
            brand.logo_png = brand.logo_width = brand.logo_height = None
        else:
            logo = _logo(data["logo"])
            brand.logo_png, brand.logo_width, brand.logo_height = logo.png, logo.width, logo.height


def _save(model: BrandModel, brand: EmailBrand | LetterBrand, *, insert: bool) -> None:
    kind = "Email" if model is EmailBrand else "Letter"
    duplicate = BadRequestError(f"{kind} brand name '{brand.name}' already exists")
    same_name = model.select().where(peewee.fn.LOWER(model.name) == brand.name.lower())
    if not insert:
        same_name = same_name.where(model.id != brand.id)
    if same_name.exists():
        raise duplicate
    try:
        with database.atomic():
            brand.save(force_insert=insert)
    except peewee.IntegrityError:
        raise duplicate from None


def create_email_brand(data: Any) -> dict[str, Any]:
    validate(brand_schemas.create_email_brand, data)
    brand = EmailBrand()
    _apply(brand, data)
    _save(EmailBrand, brand, insert=True)
    return email_brand_json(brand)


def update_email_brand(brand_id: str, data: Any) -> dict[str, Any]:
    brand = find_brand(EmailBrand, brand_id)
    validate(brand_schemas.update_email_brand, data)
    _apply(brand, data)
    brand.updated_at = utcnow()
    _save(EmailBrand, brand, insert=False)
    return email_brand_json(brand)


def create_letter_brand(data: Any) -> dict[str, Any]:
    validate(brand_schemas.create_letter_brand, data)
    brand = LetterBrand()
    _apply(brand, data)
    _save(LetterBrand, brand, insert=True)
    return letter_brand_json(brand)


def update_letter_brand(brand_id: str, data: Any) -> dict[str, Any]:
    brand = find_brand(LetterBrand, brand_id)
    validate(brand_schemas.update_letter_brand, data)
    _apply(brand, data)
    brand.updated_at = utcnow()
    _save(LetterBrand, brand, insert=False)
    return letter_brand_json(brand)


@admin_blueprint.post("/email-brands")
@documented("Create an email brand (logo as base64 PNG or SVG).", {201: brand_schemas.email_brand_response}, body=brand_schemas.create_email_brand)
def post_email_brand() -> tuple[Response, int]:
    return jsonify(create_email_brand(json_body())), 201


@admin_blueprint.get("/email-brands")
@documented("Every email brand.", {200: brand_schemas.email_brands_response})
def get_email_brands() -> Response:
    brands = EmailBrand.select().order_by(EmailBrand.name)
    return jsonify({"email_brands": [email_brand_json(brand) for brand in brands]})


@admin_blueprint.get("/email-brands/<brand_id>")
@documented("One email brand.", {200: brand_schemas.email_brand_response}, path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_email_brand(brand_id: str) -> Response:
    return jsonify(email_brand_json(find_brand(EmailBrand, brand_id)))


@admin_blueprint.patch("/email-brands/<brand_id>")
@documented("Change an email brand (only what is given).", {200: brand_schemas.email_brand_response},
            body=brand_schemas.update_email_brand, path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def patch_email_brand(brand_id: str) -> Response:
    return jsonify(update_email_brand(brand_id, json_body()))


@admin_blueprint.post("/letter-brands")
@documented("Create a letter brand (logo as base64 PNG or SVG).", {201: brand_schemas.letter_brand_response}, body=brand_schemas.create_letter_brand)
def post_letter_brand() -> tuple[Response, int]:
    return jsonify(create_letter_brand(json_body())), 201


@admin_blueprint.get("/letter-brands")
@documented("Every letter brand.", {200: brand_schemas.letter_brands_response})
def get_letter_brands() -> Response:
    brands = LetterBrand.select().order_by(LetterBrand.name)
    return jsonify({"letter_brands": [letter_brand_json(brand) for brand in brands]})


@admin_blueprint.get("/letter-brands/<brand_id>")
@documented("One letter brand.", {200: brand_schemas.letter_brand_response}, path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_letter_brand(brand_id: str) -> Response:
    return jsonify(letter_brand_json(find_brand(LetterBrand, brand_id)))


@admin_blueprint.patch("/letter-brands/<brand_id>")
@documented("Change a letter brand.", {200: brand_schemas.letter_brand_response}, body=brand_schemas.update_letter_brand, path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def patch_letter_brand(brand_id: str) -> Response:
    return jsonify(update_letter_brand(brand_id, json_body()))


@admin_blueprint.get("/letter-brands/<brand_id>/logo.png")
@documented("The letter brand's stored logo.", {200: brand_schemas.PNG}, media_type="image/png", path={"brand_id": brand_schemas.brand_path["properties"]["brand_id"]})
def get_letter_brand_logo(brand_id: str) -> Response:
    brand = find_brand(LetterBrand, brand_id)
    return Response(bytes(brand.logo_png), mimetype="image/png")
