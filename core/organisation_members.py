"""An organisation's members (admins and members), the brands it offers its services, and its trail.

An admin sees every service of the body, approves its go-live requests and manages members, domains
and brands; a member sees the services and their usage. The last admin cannot be removed or made a
member, so a body that had an admin keeps one.
"""
from __future__ import annotations

import uuid

import peewee

from core.brands import find_brand
from core.organisations import find_organisation
from models.appearance import EmailBrand, LetterBrand
from models.db import database
from models.organisation import (
    ADMIN,
    ORGANISATION_ROLES,
    Organisation,
    OrganisationEmailBrand,
    OrganisationEvent,
    OrganisationLetterBrand,
    OrganisationUser,
    record,
)
from models.user import User, find_user_by_email
from pipeline.domain.errors import BadRequestError, NoResultFound, Refusal, ValidationError

LAST_ADMIN = Refusal("last_organisation_admin",
                     "An organisation needs at least one admin: make another member admin first")
NO_ACCOUNT = "There is no console account with the email address {email}"
ALREADY_MEMBER = "{email} is already a member of this organisation"
BRAND_KINDS = {"email": (EmailBrand, OrganisationEmailBrand, "email_brand"),
               "letter": (LetterBrand, OrganisationLetterBrand, "letter_brand")}


def members_of(organisation: Organisation) -> list[OrganisationUser]:
    return list(OrganisationUser.select(OrganisationUser, User).join(User)
                .where(OrganisationUser.organisation == organisation).order_by(User.name, User.email_address))


def admins_of(organisation_id: object) -> list[str]:
    """The email addresses of the organisation's admins."""
    return [member.user.email_address for member in OrganisationUser.select(OrganisationUser, User).join(User)
            .where((OrganisationUser.organisation == organisation_id) & (OrganisationUser.role == ADMIN))
            .order_by(User.email_address)]


def _role(role: str) -> str:
    if role not in ORGANISATION_ROLES:
        raise ValidationError(f"role must be one of {', '.join(ORGANISATION_ROLES)}")
    return role


def _member(organisation: Organisation, user_id: str) -> OrganisationUser:
    try:
        wanted = uuid.UUID(str(user_id))
    except ValueError:
        raise NoResultFound() from None
    row = (OrganisationUser.select(OrganisationUser, User).join(User)
           .where((OrganisationUser.organisation == organisation) & (OrganisationUser.user == wanted)).first())
    if row is None:
        raise NoResultFound()
    return row


def _other_admins(organisation: Organisation, member: OrganisationUser) -> bool:
    return OrganisationUser.select().where((OrganisationUser.organisation == organisation)
                                           & (OrganisationUser.role == ADMIN)
                                           & (OrganisationUser.id != member.id)).exists()


def add_member(organisation_id: str, email_address: str, role: str) -> OrganisationUser:
    """Add the console account with this address, in a role."""
    organisation = find_organisation(organisation_id)
    user = find_user_by_email(email_address)
    if user is None:
        raise BadRequestError(Refusal.filled("no_console_account", NO_ACCOUNT, email=email_address.strip()))
    try:
        with database.atomic():
            OrganisationUser.create(organisation=organisation, user=user, role=_role(role))
            record(organisation.id, "member.add", subject_id=user.id,
                   after={"email_address": user.email_address, "role": role})
    except peewee.IntegrityError:
        raise BadRequestError(Refusal.filled("already_member", ALREADY_MEMBER, email=user.email_address)) from None
    return _member(organisation, str(user.id))


def change_role(organisation_id: str, user_id: str, role: str) -> OrganisationUser:
    organisation = find_organisation(organisation_id)
    member, wanted = _member(organisation, user_id), _role(role)
    if member.role == wanted:
        return member
    if member.role == ADMIN and not _other_admins(organisation, member):
        raise BadRequestError(LAST_ADMIN)
    with database.atomic():
        OrganisationUser.update(role=wanted).where(OrganisationUser.id == member.id).execute()
        record(organisation.id, "member.role", subject_id=member.user_id,
               before={"email_address": member.user.email_address, "role": member.role},
               after={"email_address": member.user.email_address, "role": wanted})
    return _member(organisation, user_id)


def remove_member(organisation_id: str, user_id: str) -> None:
    organisation = find_organisation(organisation_id)
    member = _member(organisation, user_id)
    if member.role == ADMIN and not _other_admins(organisation, member):
        raise BadRequestError(LAST_ADMIN)
    with database.atomic():
        member.delete_instance()
        record(organisation.id, "member.remove", subject_id=member.user_id,
               before={"email_address": member.user.email_address, "role": member.role})


def brands_of(organisation: Organisation) -> tuple[list[EmailBrand], list[LetterBrand]]:
    """The email and letter brands the organisation's services may choose."""
    email = (EmailBrand.select().join(OrganisationEmailBrand, on=OrganisationEmailBrand.email_brand == EmailBrand.id)
             .where(OrganisationEmailBrand.organisation == organisation).order_by(EmailBrand.name))
    letter = (LetterBrand.select()
              .join(OrganisationLetterBrand, on=OrganisationLetterBrand.letter_brand == LetterBrand.id)
              .where(OrganisationLetterBrand.organisation == organisation).order_by(LetterBrand.name))
    return list(email), list(letter)


def _brand_kind(kind: str) -> tuple[type[EmailBrand] | type[LetterBrand], type[peewee.Model], str]:
    if kind not in BRAND_KINDS:
        raise NoResultFound()
    return BRAND_KINDS[kind]  # type: ignore[return-value]


def add_brand(organisation_id: str, kind: str, brand_id: str) -> None:
    """Offer an email or letter brand (kind "email" or "letter") to the organisation's services."""
    organisation = find_organisation(organisation_id)
    model, link, field = _brand_kind(kind)
    brand = find_brand(model, brand_id)  # type: ignore[type-var]
    if link.select().where((link.organisation == organisation)  # type: ignore[attr-defined]
                           & (getattr(link, field) == brand.id)).exists():
        return
    with database.atomic():
        link.create(organisation=organisation, **{field: brand})
        record(organisation.id, f"{kind}_brand.add", subject_id=brand.id, after={"brand": brand.name})


def remove_brand(organisation_id: str, kind: str, brand_id: str) -> None:
    """Stop offering a brand; services that use it keep it until they choose again."""
    organisation = find_organisation(organisation_id)
    model, link, field = _brand_kind(kind)
    brand = find_brand(model, brand_id)  # type: ignore[type-var]
    with database.atomic():
        if not link.delete().where((link.organisation == organisation)  # type: ignore[attr-defined]
                                   & (getattr(link, field) == brand.id)).execute():
            raise NoResultFound()
        record(organisation.id, f"{kind}_brand.remove", subject_id=brand.id, before={"brand": brand.name})


def organisation_history(organisation_id: str, limit: int = 100) -> list[OrganisationEvent]:
    """The organisation's changes, newest first."""
    organisation = find_organisation(organisation_id)
    return list(OrganisationEvent.select().where(OrganisationEvent.organisation_id == organisation.id)
                .order_by(OrganisationEvent.created_at.desc(), OrganisationEvent.id.desc()).limit(limit))
