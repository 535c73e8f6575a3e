"""Who a service sends as: SMS senders, email reply-to addresses, letter contact blocks, and the
inbound numbers texts are received on. A service always has one default of each kind it has."""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic

from core.ids import checked_uuid
from core.services import find_service
from models import audit
from models.db import database
from models.service import (
    InboundNumber,
    LetterContact,
    ReplyToAddress,
    Service,
    Setting,
    SmsSender,
    add_service_setting,
    make_default_setting,
)
from pipeline.domain.errors import BadRequestError, NoResultFound, Refusal, ValidationError

# Alphanumeric sender ids are capped at 11 characters by the networks; numeric ones are numbers.
_SMS_SENDER = re.compile(r"[A-Za-z0-9 ]{1,11}|\+?[0-9]{3,15}")
DEFAULT_KEPT = Refusal("default_kept", "This is the default: make another one the default instead")
SMS_SENDER_PROBLEM = Refusal("sms_sender_problem", "must be up to 11 letters, digits and spaces, or a phone number")
_SEPARATORS = re.compile(r"[\s()\-]")
INBOUND_NUMBER_PROBLEM = Refusal("inbound_number_problem",
                                 "must be a phone number of 3 to 15 digits, optionally starting with +")


def is_sms_sender(value: str) -> bool:
    return _SMS_SENDER.fullmatch(value.strip()) is not None


def strip_separators(number: str) -> str:
    """The stored form of inbound numbers: spaces, brackets and dashes left out."""
    return _SEPARATORS.sub("", number)


def is_inbound_number(value: str) -> bool:
    return re.fullmatch(r"\+?[0-9]{3,15}", strip_separators(value)) is not None


def _sms_sender(raw: str) -> str:
    if not is_sms_sender(raw):
        raise ValidationError(SMS_SENDER_PROBLEM.about("sms_sender"))
    return raw.strip()


def _email(raw: str) -> str:
    from pipeline.domain.recipients import InvalidRecipient, validate_email_address

    try:
        return validate_email_address(raw)
    except InvalidRecipient as problem:
        raise ValidationError(problem.message.about("email_address")) from None


def _unchanged(raw: str) -> str:
    return raw


@dataclass(frozen=True)
class Kind(Generic[Setting]):
    """One kind of sender setting: its model, the field holding its value, how the value is checked
    and cleaned before it is stored, and how the history names its changes. The operations are its
    methods so that each works on one model type, whichever kind a path names."""
    model: type[Setting]
    field: str
    clean: Callable[[str], str]
    audit_name: str

    def recorded(self, row: Setting) -> dict[str, object]:
        return {self.field: getattr(row, self.field), "is_default": row.is_default}

    def add(self, service: Service, value: str, *, is_default: bool) -> Setting:
        cleaned = self.clean(value)
        with database.atomic():
            row = add_service_setting(self.model, service, is_default=is_default, **{self.field: cleaned})
            audit.record(service.id, f"{self.audit_name}.add", subject_id=row.id, after=self.recorded(row))
        return row

    def find(self, service: Service, setting_id: str) -> Setting:
        model = self.model
        row = model.get_or_none((model.id == checked_uuid("setting_id", setting_id)) & (model.service == service))
        if row is None:
            raise NoResultFound()
        return row

    def update(self, service: Service, setting_id: str, *, value: str | None, is_default: bool | None) -> Setting:
        row = self.find(service, setting_id)
        if is_default is False and row.is_default:
            raise BadRequestError(DEFAULT_KEPT)
        before = self.recorded(row)
        with database.atomic():
            if value is not None:
                self.model.update({self.field: self.clean(value)}).where(self.model.id == row.id).execute()
            if is_default:
                make_default_setting(self.model, row)
            row = self.model.get_by_id(row.id)
            old, new = audit.differences(before, self.recorded(row))
            if new:
                audit.record(row.service_id, f"{self.audit_name}.update", subject_id=row.id, before=old, after=new)
        return row

    def of(self, service: Service) -> list[Setting]:
        model = self.model
        return list(model.select().where(model.service == service).order_by(model.created_at, model.id))


AnySetting = SmsSender | ReplyToAddress | LetterContact

# Keyed as the admin API's paths name them.
KINDS: dict[str, Kind[SmsSender] | Kind[ReplyToAddress] | Kind[LetterContact]] = {
    "sms-senders": Kind(SmsSender, "sms_sender", _sms_sender, "sms_sender"),
    "reply-to-addresses": Kind(ReplyToAddress, "email_address", _email, "reply_to_address"),
    "letter-contacts": Kind(LetterContact, "contact_block", _unchanged, "letter_contact"),
}


def add_setting(kind_name: str, service_id: str, *, value: str, is_default: bool = False) -> AnySetting:
    """Add one sender/reply-to/contact block of the given kind (a key of KINDS)."""
    return KINDS[kind_name].add(find_service(service_id), value, is_default=is_default)


def find_setting(kind_name: str, service_id: str, setting_id: str) -> AnySetting:
    """One sender/reply-to/contact of this service: 400 for a malformed id, 404 for another's."""
    return KINDS[kind_name].find(find_service(service_id), setting_id)


def update_setting(kind_name: str, service_id: str, setting_id: str, *, value: str | None = None,
                   is_default: bool | None = None) -> AnySetting:
    """Change a sender/reply-to/contact's value, or make it the default (the default stays the
    default until another one is made the default: a service always has one)."""
    return KINDS[kind_name].update(find_service(service_id), setting_id, value=value, is_default=is_default)


def list_settings(kind_name: str, service_id: str) -> list[AnySetting]:
    return list(KINDS[kind_name].of(find_service(service_id)))


def assign_inbound_number(service_id: str, number: str) -> InboundNumber:
    """Give the service a number texts are received on: a new number is created, a free one is
    taken, one held by another service is refused."""
    service = find_service(service_id)
    value = strip_separators(number)
    with database.atomic():
        found = InboundNumber.get_or_none(InboundNumber.number == value)
        if found is None:
            found = InboundNumber.create(number=value, service=service)
        elif found.service_id not in (None, service.id):
            raise BadRequestError(f"Inbound number {value} is already assigned to another service")
        else:
            found.service, found.active = service, True
            found.save()
        audit.record(service.id, "inbound_number.assign", subject_id=found.id, after={"number": found.number})
    return found


def list_inbound_numbers(service_id: str) -> list[InboundNumber]:
    service = find_service(service_id)
    return list(InboundNumber.select().where(InboundNumber.service == service).order_by(InboundNumber.created_at))
