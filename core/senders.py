"""Who a service sends as: SMS senders, email reply-to addresses, letter contact blocks, and the
inbound numbers texts are received on. A service always has one default of each kind it has."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from core.ids import checked_uuid
from core.services import find_service
from models import audit
from models.db import BaseModel, database
from models.service import (
    InboundNumber,
    LetterContact,
    ReplyToAddress,
    SmsSender,
    add_service_setting,
    make_default_setting,
)
from pipeline.errors import BadRequestError, NoResultFound, ValidationError

# Alphanumeric sender ids are capped at 11 characters by the networks; numeric ones are numbers.
_SMS_SENDER = re.compile(r"[A-Za-z0-9 ]{1,11}|\+?[0-9]{3,15}")
SMS_SENDER_PROBLEM = "must be up to 11 letters, digits and spaces, or a phone number"
_SEPARATORS = re.compile(r"[\s()\-]")
INBOUND_NUMBER_PROBLEM = "must be a phone number of 3 to 15 digits, optionally starting with +"


def is_sms_sender(value: str) -> bool:
    return _SMS_SENDER.fullmatch(value.strip()) is not None


def strip_separators(number: str) -> str:
    """The stored form of inbound numbers: spaces, brackets and dashes left out."""
    return _SEPARATORS.sub("", number)


def is_inbound_number(value: str) -> bool:
    return re.fullmatch(r"\+?[0-9]{3,15}", strip_separators(value)) is not None


def _sms_sender(raw: str) -> str:
    if not is_sms_sender(raw):
        raise ValidationError(f"sms_sender {SMS_SENDER_PROBLEM}")
    return raw.strip()


def _email(raw: str) -> str:
    from pipeline.recipients import InvalidRecipient, validate_email_address

    try:
        return validate_email_address(raw)
    except InvalidRecipient as problem:
        raise ValidationError(f"email_address {problem.message}") from None


def _unchanged(raw: str) -> str:
    return raw


@dataclass(frozen=True)
class Kind:
    """One kind of sender setting: its model, the field holding its value, how the value is checked
    and cleaned before it is stored, and how the history names its changes."""
    model: type[BaseModel]
    field: str
    clean: Callable[[str], str]
    audit_name: str


# Keyed as the admin API's paths name them.
KINDS = {
    "sms-senders": Kind(SmsSender, "sms_sender", _sms_sender, "sms_sender"),
    "reply-to-addresses": Kind(ReplyToAddress, "email_address", _email, "reply_to_address"),
    "letter-contacts": Kind(LetterContact, "contact_block", _unchanged, "letter_contact"),
}


def _recorded(kind: Kind, row: BaseModel) -> dict[str, object]:
    return {kind.field: getattr(row, kind.field), "is_default": row.is_default}


def add_setting(kind_name: str, service_id: str, *, value: str, is_default: bool = False) -> BaseModel:
    """Add one sender/reply-to/contact block of the given kind (a key of KINDS)."""
    kind = KINDS[kind_name]
    service = find_service(service_id)
    cleaned = kind.clean(value)
    with database.atomic():
        row = add_service_setting(kind.model, service, is_default=is_default, **{kind.field: cleaned})
        audit.record(service.id, f"{kind.audit_name}.add", subject_id=row.id, after=_recorded(kind, row))
    return row


def find_setting(kind_name: str, service_id: str, setting_id: str) -> BaseModel:
    """One sender/reply-to/contact of this service: 400 for a malformed id, 404 for another's."""
    model = KINDS[kind_name].model
    service = find_service(service_id)
    row = model.get_or_none((model.id == checked_uuid("setting_id", setting_id)) & (model.service == service))
    if row is None:
        raise NoResultFound()
    return row


def update_setting(kind_name: str, service_id: str, setting_id: str, *, value: str | None = None,
                   is_default: bool | None = None) -> BaseModel:
    """Change a sender/reply-to/contact's value, or make it the default (the default stays the
    default until another one is made the default: a service always has one)."""
    kind = KINDS[kind_name]
    row = find_setting(kind_name, service_id, setting_id)
    if is_default is False and row.is_default:
        raise BadRequestError("This is the default: make another one the default instead")
    before = _recorded(kind, row)
    with database.atomic():
        if value is not None:
            kind.model.update({kind.field: kind.clean(value)}).where(kind.model.id == row.id).execute()
        if is_default:
            make_default_setting(kind.model, row)
        row = kind.model.get_by_id(row.id)
        old, new = audit.differences(before, _recorded(kind, row))
        if new:
            audit.record(row.service_id, f"{kind.audit_name}.update", subject_id=row.id, before=old, after=new)
    return row


def list_settings(kind_name: str, service_id: str) -> list[BaseModel]:
    model = KINDS[kind_name].model
    service = find_service(service_id)
    return list(model.select().where(model.service == service).order_by(model.created_at, model.id))


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
