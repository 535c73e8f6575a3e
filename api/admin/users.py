"""Team members and the guest list: who a service in trial mode may send to.

Both are stored normalised (lower-cased email, E.164 phone number) so that the trial-mode check
only has to normalise the recipient of a send the same way and compare strings.
"""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.admin.services import find_service
from api.errors import NoResultFound, ValidationError
from pipeline.formatting import iso
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from models import audit
from models.db import database
from models.service import GuestListEntry, TeamMember


def _email(field: str, raw: str) -> str:
    # Imported here so the admin API does not pull in the recipients pipeline at start-up.
    from pipeline.recipients import InvalidRecipient, format_email_for_comparison, validate_email_address

    try:
        validate_email_address(raw)
    except InvalidRecipient as problem:
        raise ValidationError(f"{field} {problem.message}") from None
    return format_email_for_comparison(raw)


def _phone(field: str, raw: str) -> str:
    from pipeline.recipients import InvalidRecipient, validate_phone_number

    try:
        # Validating rather than only formatting: a number that can never match a send is a mistake.
        return validate_phone_number(raw).e164
    except InvalidRecipient as problem:
        raise ValidationError(f"{field} {problem.message}") from None


def team_member_json(member: TeamMember) -> dict[str, Any]:
    return {"id": member.id, "email_address": member.email_address, "mobile_number": member.mobile_number,
            "created_at": iso(member.created_at)}


def guest_list_json(entry: GuestListEntry) -> dict[str, Any]:
    return {"id": entry.id, "recipient": entry.recipient, "recipient_type": entry.recipient_type,
            "created_at": iso(entry.created_at)}


def add_team_member(service_id: str, data: Any) -> dict[str, Any]:
    service = find_service(service_id)
    validate(admin_schemas.create_user, data)
    email, mobile = data.get("email_address"), data.get("mobile_number")
    if email is None and mobile is None:
        raise ValidationError("email_address or mobile_number must be provided")
    values, problems = {}, []
    for field, raw, normalise in (("email_address", email, _email), ("mobile_number", mobile, _phone)):
        try:
            values[field] = normalise(field, raw) if raw is not None else None
        except ValidationError as problem:
            problems += problem.messages  # report both fields' problems at once, as schemas do
    if problems:
        raise ValidationError(*problems)
    with database.atomic():
        member = TeamMember.create(service=service, **values)
        audit.record(service.id, "team_member.add", subject_id=member.id, after=values)
    return team_member_json(member)


def _entry_id(raw: str) -> int:
    # Team members and guest list entries have integer ids; anything else names no entry.
    if not (raw.isascii() and raw.isdigit()):  # "²" is a digit to str.isdigit, not to int()
        raise NoResultFound()
    return int(raw)


def remove_team_member(service_id: str, member_id: str) -> None:
    service = find_service(service_id)
    member = TeamMember.get_or_none((TeamMember.id == _entry_id(member_id)) & (TeamMember.service == service))
    if member is None:
        raise NoResultFound()
    with database.atomic():
        member.delete_instance()
        audit.record(service.id, "team_member.remove", subject_id=member.id,
                     before={"email_address": member.email_address, "mobile_number": member.mobile_number})


def list_team_members(service_id: str) -> dict[str, Any]:
    service = find_service(service_id)
    members = TeamMember.select().where(TeamMember.service == service).order_by(TeamMember.id)
    return {"users": [team_member_json(member) for member in members]}


def add_guest(service_id: str, data: Any) -> tuple[dict[str, Any], bool]:
    """Add a recipient; returns (entry JSON, created). An entry already listed is returned as is,
    because the guest list is a set of recipients."""
    service = find_service(service_id)
    validate(admin_schemas.create_guest_list_entry, data)
    raw = data["recipient"]
    if "@" in raw:
        recipient, kind = _email("recipient", raw), "email"
    else:
        recipient, kind = _phone("recipient", raw), "mobile"
    existing = GuestListEntry.get_or_none((GuestListEntry.service == service) & (GuestListEntry.recipient == recipient))
    if existing is not None:
        return guest_list_json(existing), False
    with database.atomic():
        entry = GuestListEntry.create(service=service, recipient=recipient, recipient_type=kind)
        audit.record(service.id, "guest_list.add", subject_id=entry.id, after={"recipient": recipient})
    return guest_list_json(entry), True


def remove_guest(service_id: str, entry_id: str) -> None:
    service = find_service(service_id)
    entry = GuestListEntry.get_or_none((GuestListEntry.id == _entry_id(entry_id))
                                       & (GuestListEntry.service == service))
    if entry is None:
        raise NoResultFound()
    with database.atomic():
        entry.delete_instance()
        audit.record(service.id, "guest_list.remove", subject_id=entry.id, before={"recipient": entry.recipient})


def list_guests(service_id: str) -> dict[str, Any]:
    service = find_service(service_id)
    entries = GuestListEntry.select().where(GuestListEntry.service == service).order_by(GuestListEntry.id)
    return {"guest_list": [guest_list_json(entry) for entry in entries]}


@admin_blueprint.post("/services/<service_id>/users")
@documented("Add a team member (trial services may send to them).", {201: responses.team_member},
            body=admin_schemas.create_user, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_user(service_id: str) -> tuple[Response, int]:
    return jsonify(add_team_member(service_id, json_body())), 201


@admin_blueprint.get("/services/<service_id>/users")
@documented("The service's team members.", {200: responses.team_members}, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_users(service_id: str) -> Response:
    return jsonify(list_team_members(service_id))


@admin_blueprint.delete("/services/<service_id>/users/<member_id>")
@documented("Remove a team member.", {204: None}, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def delete_user(service_id: str, member_id: str) -> tuple[str, int]:
    remove_team_member(service_id, member_id)
    return "", 204


@admin_blueprint.post("/services/<service_id>/guest-list")
@documented("Add a recipient to the guest list (200 when it was already there).",
            {201: responses.guest, 200: responses.guest}, body=admin_schemas.create_guest_list_entry, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_guest(service_id: str) -> tuple[Response, int]:
    entry, created = add_guest(service_id, json_body())
    return jsonify(entry), 201 if created else 200


@admin_blueprint.get("/services/<service_id>/guest-list")
@documented("The service's guest list.", {200: responses.guest_list}, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_guest_list(service_id: str) -> Response:
    return jsonify(list_guests(service_id))


@admin_blueprint.delete("/services/<service_id>/guest-list/<entry_id>")
@documented("Remove a recipient from the guest list.", {204: None}, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def delete_guest(service_id: str, entry_id: str) -> tuple[str, int]:
    remove_guest(service_id, entry_id)
    return "", 204
