"""A service and the settings that hang off it: team, guest list, senders, contact blocks, callbacks."""
from __future__ import annotations

import re
import uuid
from typing import TypeVar

import peewee

from config import get_settings
from models.cache import settings_table
from models.db import BaseModel, JSONField, utcnow, uuid_pk

PERMISSIONS = ("email", "sms", "letter", "international_sms", "inbound_sms", "upload_document")
# A new service may use every channel, as in GOV.UK Notify; trial mode, not a missing permission, holds back
# its letters until it goes live.
DEFAULT_PERMISSIONS = ["email", "sms", "letter", "international_sms"]
CHANNELS = ("email", "sms", "letter")

DEFAULT_TIME_ZONE = "Europe/Amsterdam"


@settings_table
class Service(BaseModel):
    id = uuid_pk()
    name = peewee.CharField(unique=True)
    active = peewee.BooleanField(default=True)
    trial_mode = peewee.BooleanField(default=True)
    permissions = JSONField(default=lambda: list(DEFAULT_PERMISSIONS))
    rate_limit = peewee.IntegerField(default=3000)
    sms_daily_limit = peewee.IntegerField(default=250000)
    email_daily_limit = peewee.IntegerField(default=250000)
    letter_daily_limit = peewee.IntegerField(default=20000)
    international_sms_daily_limit = peewee.IntegerField(default=100)
    email_retention_days = peewee.IntegerField(default=7)
    sms_retention_days = peewee.IntegerField(default=7)
    letter_retention_days = peewee.IntegerField(default=7)
    file_download_contact = peewee.CharField(null=True)
    # One-click unsubscribe hosted by us (RFC 8058) for emails sent without a URL of their own.
    hosted_unsubscribe = peewee.BooleanField(default=False)
    # The IANA zone the console shows this service's times in and reads its schedules in (stored UTC).
    time_zone = peewee.TextField(default=DEFAULT_TIME_ZONE)
    created_at = peewee.DateTimeField(default=utcnow)
    updated_at = peewee.DateTimeField(null=True)

    def has_permission(self, permission: str) -> bool:
        return permission in (self.permissions or [])

    def retention_days(self, channel: str) -> int:
        return getattr(self, f"{channel}_retention_days")

    def daily_limit(self, kind: str) -> int:
        return getattr(self, f"{kind}_daily_limit")


@settings_table
class TeamMember(BaseModel):
    id: peewee.AutoField[int]  # peewee's own auto-increment key, declared here for mypy
    service = peewee.ForeignKeyField(Service, backref="team_members", on_delete="CASCADE")
    email_address = peewee.CharField(null=True)
    mobile_number = peewee.CharField(null=True)
    created_at = peewee.DateTimeField(default=utcnow)


@settings_table
class GuestListEntry(BaseModel):
    id: peewee.AutoField[int]  # peewee's own auto-increment key, declared here for mypy
    service = peewee.ForeignKeyField(Service, backref="guest_list", on_delete="CASCADE")
    recipient = peewee.CharField()  # normalised: lower-case email or E.164 number
    recipient_type = peewee.CharField()  # "email" or "mobile"
    created_at = peewee.DateTimeField(default=utcnow)


@settings_table
class SmsSender(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="sms_senders", on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    sms_sender = peewee.CharField()
    is_default = peewee.BooleanField(default=False)
    created_at = peewee.DateTimeField(default=utcnow)


@settings_table
class ReplyToAddress(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="reply_to_addresses", on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    email_address = peewee.CharField()
    is_default = peewee.BooleanField(default=False)
    created_at = peewee.DateTimeField(default=utcnow)


@settings_table
class LetterContact(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="letter_contacts", on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    contact_block = peewee.TextField()
    is_default = peewee.BooleanField(default=False)
    created_at = peewee.DateTimeField(default=utcnow)


@settings_table
class InboundNumber(BaseModel):
    id = uuid_pk()
    number = peewee.CharField(unique=True)
    service = peewee.ForeignKeyField(Service, backref="inbound_numbers", null=True, on_delete="SET NULL")
    service_id: uuid.UUID | None  # the key's raw value: peewee's accessor, typed here for mypy
    active = peewee.BooleanField(default=True)
    created_at = peewee.DateTimeField(default=utcnow)


@settings_table
class ServiceCallback(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="callbacks", on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    kind = peewee.CharField()  # pipeline.stages.callbacks.KINDS
    url = peewee.CharField()
    bearer_token_encrypted = peewee.TextField()
    updated_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("service", "kind"), True),)


# The settings a service has one default of each (senders, reply-to addresses, contact blocks).
Setting = TypeVar("Setting", SmsSender, ReplyToAddress, LetterContact)


def default_of(model: type[Setting], service: Service | uuid.UUID) -> Setting | None:
    """The service's default sender/reply-to/contact; the oldest one when none is marked default."""
    rows = list(model.select().where(model.service == service).order_by(model.is_default.desc(), model.created_at))
    return rows[0] if rows else None


# Helpers for the admin API and the operator CLI (appended; the models above are unchanged).


def find_service_by_name(name: str, *, excluding: Service | None = None) -> Service | None:
    """The service with this name ignoring case: "Tax office" and "tax office" would confuse people."""
    query = Service.select().where(peewee.fn.LOWER(Service.name) == name.lower())
    if excluding is not None:
        query = query.where(Service.id != excluding.id)
    return query.first()


def add_service_setting(model: type[Setting], service: Service, *, is_default: bool, **fields: object) -> Setting:
    """Add an SMS sender, reply-to address or letter contact. The first of its kind is the default
    whatever was asked, and a new default takes over, so a service has exactly one default of each."""
    with Service._meta.database.atomic():
        first = not model.select().where(model.service == service).exists()
        if is_default or first:
            model.update(is_default=False).where((model.service == service) & (model.is_default == True)).execute()  # noqa: E712
        return model.create(service=service, is_default=is_default or first, **fields)


def make_default_setting(model: type[Setting], row: Setting) -> None:
    """Make this sender/reply-to/contact its service's one default."""
    with Service._meta.database.atomic():
        model.update(is_default=False).where((model.service == row.service_id) & (model.id != row.id)).execute()
        model.update(is_default=True).where(model.id == row.id).execute()


def sending_address(service: Service) -> str:
    """A sending address that is not a real inbox: the service name as a local part."""
    local = re.sub(r"[^a-z0-9]+", ".", service.name.lower()).strip(".") or "notify"
    return f"{local}@{get_settings().email_from_domain}"
