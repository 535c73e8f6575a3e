"""Team members and the guest list: who a service in trial mode may send to.

Both are stored normalised (lower-cased email, E.164 phone number) so that the trial-mode check
only has to normalise the recipient of a send the same way and compare strings.
"""
from __future__ import annotations

from core.services import find_service
from models import audit
from models.db import database
from models.service import GuestListEntry, TeamMember
from pipeline.domain.errors import NoResultFound, ValidationError


def _email(field: str, raw: str) -> str:
    # Imported here so that loading the rules does not pull in the recipients pipeline.
    from pipeline.domain.recipients import InvalidRecipient, format_email_for_comparison, validate_email_address

    try:
        validate_email_address(raw)
    except InvalidRecipient as problem:
        raise ValidationError(problem.message.about(field)) from None
    return format_email_for_comparison(raw)


def _phone(field: str, raw: str) -> str:
    from pipeline.domain.recipients import InvalidRecipient, validate_phone_number

    try:
        # Validating rather than only formatting: a number that can never match a send is a mistake.
        return validate_phone_number(raw).e164
    except InvalidRecipient as problem:
        raise ValidationError(problem.message.about(field)) from None


def _entry_id(raw: str) -> int:
    # Team members and guest list entries have integer ids; anything else names no entry.
    if not (raw.isascii() and raw.isdigit()):  # "²" is a digit to str.isdigit, not to int()
        raise NoResultFound()
    return int(raw)


def add_team_member(service_id: str, *, email_address: str | None = None,
                    mobile_number: str | None = None) -> TeamMember:
    service = find_service(service_id)
    if email_address is None and mobile_number is None:
        raise ValidationError("email_address or mobile_number must be provided")
    values: dict[str, str | None] = {}
    problems: list[str] = []
    for field, raw, normalise in (("email_address", email_address, _email), ("mobile_number", mobile_number, _phone)):
        try:
            values[field] = normalise(field, raw) if raw is not None else None
        except ValidationError as problem:
            problems += problem.messages  # both fields' problems at once, as the schema reports them
    if problems:
        raise ValidationError(*problems)
    with database.atomic():
        member = TeamMember.create(service=service, **values)
        audit.record(service.id, "team_member.add", subject_id=member.id, after=values)
    return member


def remove_team_member(service_id: str, member_id: str) -> None:
    service = find_service(service_id)
    member = TeamMember.get_or_none((TeamMember.id == _entry_id(member_id)) & (TeamMember.service == service))
    if member is None:
        raise NoResultFound()
    with database.atomic():
        member.delete_instance()
        audit.record(service.id, "team_member.remove", subject_id=member.id,
                     before={"email_address": member.email_address, "mobile_number": member.mobile_number})


def list_team_members(service_id: str) -> list[TeamMember]:
    service = find_service(service_id)
    return list(TeamMember.select().where(TeamMember.service == service).order_by(TeamMember.id))


def add_guest(service_id: str, recipient: str) -> tuple[GuestListEntry, bool]:
    """Add a recipient; returns (entry, created). An entry already listed is returned as is,
    because the guest list is a set of recipients."""
    service = find_service(service_id)
    if "@" in recipient:
        normalised, kind = _email("recipient", recipient), "email"
    else:
        normalised, kind = _phone("recipient", recipient), "mobile"
    existing = GuestListEntry.get_or_none((GuestListEntry.service == service)
                                          & (GuestListEntry.recipient == normalised))
    if existing is not None:
        return existing, False
    with database.atomic():
        entry = GuestListEntry.create(service=service, recipient=normalised, recipient_type=kind)
        audit.record(service.id, "guest_list.add", subject_id=entry.id, after={"recipient": normalised})
    return entry, True


def remove_guest(service_id: str, entry_id: str) -> None:
    service = find_service(service_id)
    entry = GuestListEntry.get_or_none((GuestListEntry.id == _entry_id(entry_id))
                                       & (GuestListEntry.service == service))
    if entry is None:
        raise NoResultFound()
    with database.atomic():
        entry.delete_instance()
        audit.record(service.id, "guest_list.remove", subject_id=entry.id, before={"recipient": entry.recipient})


def list_guests(service_id: str) -> list[GuestListEntry]:
    service = find_service(service_id)
    return list(GuestListEntry.select().where(GuestListEntry.service == service).order_by(GuestListEntry.id))
