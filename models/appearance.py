"""What recipients see of a service: its language and its email and letter brands.

Brands are rows of their own, so the services of one organisation can share one brand. A logo is
stored only as the PNG we produced from the upload (pipeline/domain/branding/logos.py), never as uploaded.
"""
from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass

import peewee

from models.cache import cached
from models.db import BaseModel, utcnow, uuid_pk
from models.service import Service

EMAIL_BRAND_TYPES = ("org", "both")  # the brand replaces the service name, or sits beside it
DEFAULT_LANGUAGE = "nl"


class EmailBrand(BaseModel):
    id = uuid_pk()
    name = peewee.CharField(unique=True)  # shown in the email header and as the logo's alt text
    colour = peewee.CharField(null=True)  # "#rrggbb": the header's band
    brand_type = peewee.CharField(default="org")
    logo_png = peewee.BlobField(null=True)
    logo_width = peewee.IntegerField(null=True)  # pixels
    logo_height = peewee.IntegerField(null=True)
    created_at = peewee.DateTimeField(default=utcnow)
    updated_at = peewee.DateTimeField(null=True)

    @property
    def logo_digest(self) -> str | None:
        """Part of the logo's public address, so a changed logo is never served from a stale cache."""
        return hashlib.sha256(bytes(self.logo_png)).hexdigest()[:16] if self.logo_png else None


class LetterBrand(BaseModel):
    id = uuid_pk()
    name = peewee.CharField(unique=True)
    logo_png = peewee.BlobField()
    logo_width = peewee.IntegerField()
    logo_height = peewee.IntegerField()
    created_at = peewee.DateTimeField(default=utcnow)
    updated_at = peewee.DateTimeField(null=True)


class ServiceAppearance(BaseModel):
    """One row per service that changed any of these; a service without one speaks Dutch, unbranded."""

    service = peewee.ForeignKeyField(Service, primary_key=True, on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    language = peewee.CharField(default=DEFAULT_LANGUAGE)
    email_brand = peewee.ForeignKeyField(EmailBrand, null=True, on_delete="SET NULL")
    letter_brand = peewee.ForeignKeyField(LetterBrand, null=True, on_delete="SET NULL")
    updated_at = peewee.DateTimeField(default=utcnow)


@dataclass(frozen=True)
class Appearance:
    language: str
    email_brand: EmailBrand | None
    letter_brand: LetterBrand | None


def appearance_of(service_id: object) -> Appearance:
    row = (ServiceAppearance.select(ServiceAppearance, EmailBrand, LetterBrand)
           .join(EmailBrand, peewee.JOIN.LEFT_OUTER, on=ServiceAppearance.email_brand == EmailBrand.id)
           .switch(ServiceAppearance)
           .join(LetterBrand, peewee.JOIN.LEFT_OUTER, on=ServiceAppearance.letter_brand == LetterBrand.id)
           .where(ServiceAppearance.service == service_id).first())
    if row is None:
        return Appearance(DEFAULT_LANGUAGE, None, None)
    return Appearance(row.language, row.email_brand if row.email_brand_id else None,
                      row.letter_brand if row.letter_brand_id else None)


def cached_appearance_of(service_id: object) -> Appearance:
    """For the send path: read at most once per CACHE_TTL_SECONDS per process (models.cache)."""
    return cached(("appearance", str(service_id)), lambda: appearance_of(service_id))


def language_of(service_id: object) -> str:
    row = ServiceAppearance.select(ServiceAppearance.language).where(ServiceAppearance.service == service_id).first()
    return row.language if row else DEFAULT_LANGUAGE


def set_appearance(service: Service, **changes: object) -> ServiceAppearance:
    """Create or change the service's row with ``changes`` (language, email_brand, letter_brand)."""
    with ServiceAppearance._meta.database.atomic():
        row = ServiceAppearance.get_or_none(ServiceAppearance.service == service)
        if row is None:
            row = ServiceAppearance(service=service)
            insert = True
        else:
            insert = False
        for name, value in changes.items():
            setattr(row, name, value)
        row.updated_at = utcnow()
        row.save(force_insert=insert)
    return row
