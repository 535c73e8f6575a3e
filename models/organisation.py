"""Organisations: the public bodies (a municipality, a water board, an agency) whose services share
members, email domains, brands, a rate agreement and a go-live approver.

A service belongs to at most one organisation (`OrganisationService`, keyed by the service), so the
service's own table stays as it was. An organisation's changes are recorded in its own trail
(`OrganisationEvent`), shaped as a service's (models/audit.py) and written by the same actor.
"""
from __future__ import annotations

import uuid
from typing import Any

import peewee

from models import audit
from models.appearance import EmailBrand, LetterBrand
from models.cache import cached, settings_table
from models.db import BaseModel, JSONField, utcnow, uuid_pk
from models.rate import STANDARD_RATES
from models.service import Service
from models.user import User

ORGANISATION_KINDS = ("gemeente", "provincie", "waterschap", "rijksoverheid", "zbo", "other")
ADMIN, MEMBER = "admin", "member"
ORGANISATION_ROLES = (ADMIN, MEMBER)
DEFAULT_TIME_ZONE = "Europe/Amsterdam"


@settings_table
class Organisation(BaseModel):
    id = uuid_pk()
    name = peewee.CharField(unique=True)
    kind = peewee.CharField()  # one of ORGANISATION_KINDS
    language = peewee.CharField(default="nl")  # given to a service made in it
    time_zone = peewee.CharField(default=DEFAULT_TIME_ZONE)  # an IANA name, given to a service made in it
    rate_table = peewee.CharField(default=STANDARD_RATES)  # which prices its services' messages cost
    created_at = peewee.DateTimeField(default=utcnow)
    updated_at = peewee.DateTimeField(null=True)


class OrganisationDomain(BaseModel):
    """An email domain of the body: a new service made by someone with an address there joins it."""
    id: peewee.AutoField[int]  # peewee's own auto-increment key, declared here for mypy
    organisation = peewee.ForeignKeyField(Organisation, backref="domains", on_delete="CASCADE")
    domain = peewee.CharField(unique=True)  # lower-case, no "@"
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "organisation_domain"


class OrganisationUser(BaseModel):
    id: peewee.AutoField[int]  # peewee's own auto-increment key, declared here for mypy
    organisation = peewee.ForeignKeyField(Organisation, backref="members", on_delete="CASCADE")
    user = peewee.ForeignKeyField(User, backref="organisation_memberships", on_delete="CASCADE")
    user_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    role = peewee.CharField(default=MEMBER)  # one of ORGANISATION_ROLES
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "organisation_user"
        indexes = ((("organisation", "user"), True),)


@settings_table
class OrganisationService(BaseModel):
    service = peewee.ForeignKeyField(Service, primary_key=True, backref="organisation_link", on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    organisation = peewee.ForeignKeyField(Organisation, backref="service_links", on_delete="CASCADE")
    organisation_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "organisation_service"


class OrganisationEmailBrand(BaseModel):
    organisation = peewee.ForeignKeyField(Organisation, backref="email_brands", on_delete="CASCADE")
    email_brand = peewee.ForeignKeyField(EmailBrand, on_delete="CASCADE")
    email_brand_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy

    class Meta:
        table_name = "organisation_email_brand"
        indexes = ((("organisation", "email_brand"), True),)


class OrganisationLetterBrand(BaseModel):
    organisation = peewee.ForeignKeyField(Organisation, backref="letter_brands", on_delete="CASCADE")
    letter_brand = peewee.ForeignKeyField(LetterBrand, on_delete="CASCADE")
    letter_brand_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy

    class Meta:
        table_name = "organisation_letter_brand"
        indexes = ((("organisation", "letter_brand"), True),)


class OrganisationEvent(BaseModel):
    """One change to an organisation, by whom, with the values before and after (as models/audit.py)."""
    id = uuid_pk()
    organisation_id = peewee.UUIDField()
    action = peewee.CharField()  # e.g. "organisation.update", "domain.add"
    subject_id = peewee.CharField(null=True)
    actor_kind = peewee.CharField()
    actor_id = peewee.CharField()
    actor_name = peewee.CharField()
    before = JSONField(null=True)
    after = JSONField(null=True)
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "organisation_event"
        indexes = ((("organisation_id", "created_at"), False),)


ORGANISATION_TABLES = [Organisation, OrganisationDomain, OrganisationUser, OrganisationService,
                       OrganisationEmailBrand, OrganisationLetterBrand, OrganisationEvent]


def record(organisation_id: uuid.UUID | str, action: str, *, before: dict[str, Any] | None = None,
           after: dict[str, Any] | None = None, subject_id: object = None) -> OrganisationEvent:
    """Record one change to an organisation by the current actor, inside the change's transaction."""
    actor = audit.current_actor()
    return OrganisationEvent.create(
        organisation_id=uuid.UUID(str(organisation_id)), action=action,
        subject_id=None if subject_id is None else str(subject_id),
        actor_kind=actor.kind, actor_id=actor.id, actor_name=actor.name,
        before=audit.plain(before), after=audit.plain(after),
    )


def organisation_of(service_id: object) -> Organisation | None:
    return (Organisation.select().join(OrganisationService)
            .where(OrganisationService.service == service_id).first())


def organisation_by_domain(email_address: str) -> Organisation | None:
    """The organisation an address's domain belongs to (matched exactly, lower-case)."""
    domain = email_address.rsplit("@", 1)[-1].strip().lower()
    return Organisation.select().join(OrganisationDomain).where(OrganisationDomain.domain == domain).first()


def role_in(user: User, organisation_id: object) -> str | None:
    row = OrganisationUser.get_or_none((OrganisationUser.user == user)
                                       & (OrganisationUser.organisation == organisation_id))
    return None if row is None else row.role


def rate_table_of(service_id: object) -> str:
    """The rate table the service's messages are priced from, read at most once per
    CACHE_TTL_SECONDS per process (the v2 API prices every notification it returns)."""
    def load() -> str:
        organisation = organisation_of(service_id)
        return organisation.rate_table if organisation is not None else STANDARD_RATES

    return cached(("rate-table", str(service_id)), load)
