"""Email and letter brands: create and change them, with their logos.

A brand is its own record, so the services of one organisation share it by pointing at it
(core/appearance.py). Logos arrive as the uploaded file's bytes; how a door carries them (the admin
API's base64) is the door's business.
"""
from __future__ import annotations

from typing import Any, TypeVar

import peewee

from models.appearance import EmailBrand, LetterBrand
from models.db import database, is_uuid, utcnow
from pipeline.domain.branding.colours import HEX_COLOUR
from pipeline.domain.branding.logos import LogoError, process_logo
from pipeline.domain.errors import BLANK, BadRequestError, NoResultFound, Refusal, ValidationError

BrandModel = type[EmailBrand] | type[LetterBrand]
Brand = EmailBrand | LetterBrand
BrandT = TypeVar("BrandT", EmailBrand, LetterBrand)
COLOUR_PROBLEM = Refusal("colour_problem", "must be a colour written #rrggbb, like #154273")
_EMAIL_FIELDS = frozenset(("name", "colour", "brand_type", "logo"))
_LETTER_FIELDS = frozenset(("name", "logo"))


def find_brand(model: type[BrandT], brand_id: str) -> BrandT:
    """The brand; NoResultFound for an id that is malformed or unknown."""
    brand = model.get_or_none(model.id == brand_id) if is_uuid(brand_id) else None
    if brand is None:
        raise NoResultFound()
    return brand


def is_colour(value: str) -> bool:
    return bool(HEX_COLOUR.match(value))


def _apply(brand: Brand, changes: dict[str, Any]) -> None:
    if "name" in changes:
        name = changes["name"].strip()
        if not name:
            raise ValidationError(BLANK.about("name"))
        brand.name = name
    colour = changes.get("colour")
    if colour is not None and not is_colour(colour):
        raise ValidationError(COLOUR_PROBLEM.about("colour"))
    for field in ("colour", "brand_type"):
        if field in changes:
            setattr(brand, field, changes[field])
    if "logo" in changes:
        if changes["logo"] is None:
            brand.logo_png = brand.logo_width = brand.logo_height = None
        else:
            try:
                logo = process_logo(changes["logo"])
            except LogoError as error:
                raise ValidationError(str(error)) from None
            brand.logo_png, brand.logo_width, brand.logo_height = logo.png, logo.width, logo.height


def _save(model: BrandModel, brand: Brand, *, insert: bool) -> None:
    """Save, refusing a name another brand of the kind has in any case (checked first for the message,
    and caught from the unique index for two requests racing)."""
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


def _checked(changes: dict[str, Any], allowed: frozenset[str]) -> dict[str, Any]:
    unknown = set(changes) - allowed
    if unknown:
        raise TypeError(f"not a brand field: {', '.join(sorted(unknown))}")
    return changes


def _update(model: BrandModel, brand: Brand, changes: dict[str, Any]) -> None:
    _apply(brand, changes)
    brand.updated_at = utcnow()
    _save(model, brand, insert=False)


def create_email_brand(*, name: str, colour: str | None = None, brand_type: str | None = None,
                       logo: bytes | None = None) -> EmailBrand:
    """A new email brand; without a brand_type its logo replaces the service name ("org")."""
    brand = EmailBrand()
    given = {"name": name, "colour": colour, "brand_type": brand_type, "logo": logo}
    _apply(brand, {field: value for field, value in given.items() if value is not None})
    _save(EmailBrand, brand, insert=True)
    return brand


def update_email_brand(brand_id: str, **changes: Any) -> EmailBrand:
    """Change what is given of name, colour, brand_type and logo (None: no logo)."""
    brand = find_brand(EmailBrand, brand_id)
    _update(EmailBrand, brand, _checked(changes, _EMAIL_FIELDS))
    return brand


def create_letter_brand(*, name: str, logo: bytes) -> LetterBrand:
    brand = LetterBrand()
    _apply(brand, {"name": name, "logo": logo})
    _save(LetterBrand, brand, insert=True)
    return brand


def update_letter_brand(brand_id: str, **changes: Any) -> LetterBrand:
    """Change what is given of name and logo."""
    brand = find_brand(LetterBrand, brand_id)
    _update(LetterBrand, brand, _checked(changes, _LETTER_FIELDS))
    return brand
