"""Organisations: make one, change it, its email domains and its services.

The one place these rules live for the admin API, the CLI and the console. Every change is recorded
in the organisation's trail (models/organisation.record) in its own transaction; a service joining or
leaving one is recorded in the service's history too. Members and brands: core/organisation_members.py.
"""
from __future__ import annotations

import re
import uuid
import zoneinfo
from typing import Any

import peewee

from core.ids import checked_uuid
from core.services import find_service
from models import audit
from models.appearance import appearance_of, set_appearance
from models.db import database, utcnow
from models.organisation import (
    ORGANISATION_KINDS,
    Organisation,
    OrganisationDomain,
    OrganisationEmailBrand,
    OrganisationLetterBrand,
    OrganisationService,
    OrganisationUser,
    organisation_by_domain,
    organisation_of,
    record,
)
from models.rate import Rate
from models.service import Service
from models.user import User
from pipeline.domain.errors import BLANK, BadRequestError, NoResultFound, Refusal, ValidationError

LANGUAGES = ("nl", "en")
FIELDS = ("name", "kind", "language", "time_zone", "rate_table")
# A domain as people write it after the "@": labels of letters, digits and hyphens, at least two.
DOMAIN = re.compile(r"^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}[a-z0-9]$")
NOT_A_DOMAIN = "{domain} is not an email domain (write it as it comes after the @, like gemeente.nl)"
DOMAIN_TAKEN = "The email domain {domain} already belongs to {organisation}"
NOT_A_TIME_ZONE = "time_zone {time_zone} is not a time zone (an IANA name, like Europe/Amsterdam)"
NO_RATES = "rate_table {rate_table} has no rates"


def find_organisation(organisation_id: str) -> Organisation:
    """The organisation named in a path: 400 for a malformed id, 404 for an unknown one."""
    organisation = Organisation.get_or_none(Organisation.id == checked_uuid("organisation_id", organisation_id))
    if organisation is None:
        raise NoResultFound()
    return organisation


def values_of(organisation: Organisation) -> dict[str, Any]:
    """What the trail records of an organisation: its settings, not its id or timestamps."""
    return {field: getattr(organisation, field) for field in FIELDS}


def list_organisations(search: str | None = None) -> list[Organisation]:
    """Every organisation by name; with `search`, those whose name or a domain contains it, or whose id it is."""
    query = Organisation.select().order_by(Organisation.name)
    words = (search or "").strip().lower()
    if words:
        domains = OrganisationDomain.select(OrganisationDomain.organisation).where(
            OrganisationDomain.domain.contains(words))
        matches = (peewee.fn.LOWER(Organisation.name).contains(words)) | Organisation.id.in_(domains)
        try:
            matches |= Organisation.id == uuid.UUID(words)
        except ValueError:
            pass
        query = query.where(matches)
    return list(query)


def organisations_of(user: User) -> list[Organisation]:
    """The organisations a user may open: every one for a platform admin."""
    if user.platform_admin:
        return list_organisations()
    return list(Organisation.select().join(OrganisationUser).where(OrganisationUser.user == user)
                .order_by(Organisation.name))


def visible_organisation(user: User, organisation_id: str) -> Organisation:
    """The organisation, if the user is a member of it or a platform admin; else NoResultFound, so
    a member of another body cannot tell it exists."""
    organisation = find_organisation(organisation_id)
    if not user.platform_admin and not OrganisationUser.select().where(
            (OrganisationUser.organisation == organisation) & (OrganisationUser.user == user)).exists():
        raise NoResultFound()
    return organisation


def _checked(changes: dict[str, Any]) -> dict[str, Any]:
    unknown = set(changes) - set(FIELDS)
    if unknown:
        raise TypeError(f"not an organisation field: {', '.join(sorted(unknown))}")
    problems: list[str] = []
    if "name" in changes:
        changes["name"] = (changes["name"] or "").strip()
        if not changes["name"]:
            problems.append(BLANK.about("name"))
    if "kind" in changes and changes["kind"] not in ORGANISATION_KINDS:
        problems.append(f"kind must be one of {', '.join(ORGANISATION_KINDS)}")
    if "language" in changes and changes["language"] not in LANGUAGES:
        problems.append(f"language must be one of {', '.join(LANGUAGES)}")
    if "time_zone" in changes and changes["time_zone"] not in zoneinfo.available_timezones():
        problems.append(Refusal.filled("not_a_time_zone", NOT_A_TIME_ZONE, time_zone=changes["time_zone"]))
    if changes.get("rate_table") is not None and not Rate.select().where(
            Rate.rate_table == changes["rate_table"]).exists():
        problems.append(Refusal.filled("no_rates", NO_RATES, rate_table=changes["rate_table"]))
    if problems:
        raise ValidationError(*problems)
    return changes


def _save(organisation: Organisation, *, insert: bool, before: dict[str, Any] | None) -> None:
    duplicate = BadRequestError(Refusal.filled("organisation_name_taken", "Organisation name '{name}' already exists",
                                               name=organisation.name))
    same_name = Organisation.select().where(peewee.fn.LOWER(Organisation.name) == organisation.name.lower())
    if same_name.where(Organisation.id != organisation.id).exists():
        raise duplicate
    try:
        with database.atomic():
            organisation.save(force_insert=insert)
            if before is None:
                record(organisation.id, "organisation.create", after=values_of(organisation))
            else:
                old, new = audit.differences(before, values_of(organisation))
                if new:
                    record(organisation.id, "organisation.update", before=old, after=new)
    except peewee.IntegrityError:
        raise duplicate from None


def create_organisation(name: str, kind: str, **settings: Any) -> Organisation:
    """A new organisation; `settings` are language, time_zone and rate_table."""
    organisation = Organisation(**_checked({"name": name, "kind": kind, **settings}))
    _save(organisation, insert=True, before=None)
    return organisation


def update_organisation(organisation_id: str, **changes: Any) -> Organisation:
    organisation = find_organisation(organisation_id)
    before = values_of(organisation)
    for field, value in _checked(changes).items():
        setattr(organisation, field, value)
    organisation.updated_at = utcnow()
    _save(organisation, insert=False, before=before)
    return organisation


def domains_of(organisation: Organisation) -> list[str]:
    return [row.domain for row in OrganisationDomain.select().where(OrganisationDomain.organisation == organisation)
            .order_by(OrganisationDomain.domain)]


def add_domain(organisation_id: str, domain: str) -> OrganisationDomain:
    """Claim an email domain for the organisation; a domain another organisation has is refused."""
    organisation = find_organisation(organisation_id)
    wanted = domain.strip().lower().lstrip("@")
    if not DOMAIN.match(wanted):
        raise ValidationError(Refusal.filled("not_a_domain", NOT_A_DOMAIN, domain=domain.strip()))
    taken = organisation_by_domain(f"x@{wanted}")
    if taken is not None:
        raise BadRequestError(Refusal.filled("domain_taken", DOMAIN_TAKEN, domain=wanted, organisation=taken.name))
    try:
        with database.atomic():
            row = OrganisationDomain.create(organisation=organisation, domain=wanted)
            record(organisation.id, "domain.add", after={"domain": wanted})
    except peewee.IntegrityError:  # claimed by another request at the same moment
        raise BadRequestError(Refusal.filled("domain_taken", DOMAIN_TAKEN, domain=wanted,
                                             organisation="another organisation")) from None
    return row


def remove_domain(organisation_id: str, domain: str) -> None:
    organisation = find_organisation(organisation_id)
    wanted = domain.strip().lower()
    with database.atomic():
        if not OrganisationDomain.delete().where((OrganisationDomain.organisation == organisation)
                                                 & (OrganisationDomain.domain == wanted)).execute():
            raise NoResultFound()
        record(organisation.id, "domain.remove", before={"domain": wanted})


def services_in(organisation: Organisation) -> list[Service]:
    return list(Service.select().join(OrganisationService)
                .where(OrganisationService.organisation == organisation).order_by(Service.name))


def _keep_offered_brands(service: Service, organisation: Organisation) -> None:
    """A service keeps its brands only where its new organisation offers them; otherwise it falls back
    to the platform's default (no brand), recorded in its history."""
    appearance = appearance_of(service.id)
    offered_email, offered_letter = _offered(organisation)
    dropped: dict[str, Any] = {}
    if appearance.email_brand is not None and appearance.email_brand.id not in offered_email:
        dropped["email_brand"] = appearance.email_brand
    if appearance.letter_brand is not None and appearance.letter_brand.id not in offered_letter:
        dropped["letter_brand"] = appearance.letter_brand
    if dropped:
        set_appearance(service, **{field: None for field in dropped})
        audit.record(service.id, "service.appearance",
                     before={f"{field}_id": str(brand.id) for field, brand in dropped.items()},
                     after={f"{field}_id": None for field in dropped})


def add_service(organisation_id: str, service_id: str) -> Service:
    """Put the service in the organisation, out of any other it was in."""
    organisation, service = find_organisation(organisation_id), find_service(service_id)
    current = organisation_of(service.id)
    if current is not None and current.id == organisation.id:
        return service
    with database.atomic():
        OrganisationService.delete().where(OrganisationService.service == service).execute()
        OrganisationService.create(service=service, organisation=organisation)
        before = {"organisation": current.name} if current else {"organisation": None}
        audit.record(service.id, "service.organisation", before=before, after={"organisation": organisation.name})
        if current is not None:
            record(current.id, "service.leave", subject_id=service.id, before={"service": service.name})
        record(organisation.id, "service.join", subject_id=service.id, after={"service": service.name})
        _keep_offered_brands(service, organisation)
    return service


def remove_service(organisation_id: str, service_id: str) -> None:
    organisation, service = find_organisation(organisation_id), find_service(service_id)
    with database.atomic():
        if not OrganisationService.delete().where((OrganisationService.service == service) & (
                OrganisationService.organisation == organisation)).execute():
            raise NoResultFound()
        audit.record(service.id, "service.organisation", before={"organisation": organisation.name},
                     after={"organisation": None})
        record(organisation.id, "service.leave", subject_id=service.id, before={"service": service.name})


def join_by_domain(service: Service, email_address: str) -> Organisation | None:
    """A service just made by someone whose address is on an organisation's domain joins it, and
    takes its language and time zone."""
    organisation = organisation_by_domain(email_address)
    if organisation is None:
        return None
    with database.atomic():
        OrganisationService.create(service=service, organisation=organisation)
        before_zone = service.time_zone
        Service.update(time_zone=organisation.time_zone).where(Service.id == service.id).execute()
        service.time_zone = organisation.time_zone
        set_appearance(service, language=organisation.language)
        audit.record(service.id, "service.organisation", before={"organisation": None, "time_zone": before_zone},
                     after={"organisation": organisation.name, "time_zone": organisation.time_zone,
                            "language": organisation.language})
        record(organisation.id, "service.join", subject_id=service.id, after={"service": service.name})
    return organisation


def offered_brand_ids(service_id: object) -> tuple[set[uuid.UUID], set[uuid.UUID]] | None:
    """The email and letter brands the service may choose: its organisation's; None (any brand)
    for a service in no organisation."""
    organisation = organisation_of(service_id)
    return None if organisation is None else _offered(organisation)


def _offered(organisation: Organisation) -> tuple[set[uuid.UUID], set[uuid.UUID]]:
    email = {row.email_brand_id for row in OrganisationEmailBrand.select().where(
        OrganisationEmailBrand.organisation == organisation)}
    letter = {row.letter_brand_id for row in OrganisationLetterBrand.select().where(
        OrganisationLetterBrand.organisation == organisation)}
    return email, letter
