"""Team members and the guest list: who a service in trial mode may send to (the rules are
core.team)."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from core.services import find_service
from core.team import add_guest, add_team_member, list_guests, list_team_members, remove_guest, remove_team_member
from models.service import GuestListEntry, TeamMember
from pipeline.domain.formatting import iso


def team_member_json(member: TeamMember) -> dict[str, Any]:
    return {"id": member.id, "email_address": member.email_address, "mobile_number": member.mobile_number,
            "created_at": iso(member.created_at)}


def guest_list_json(entry: GuestListEntry) -> dict[str, Any]:
    return {"id": entry.id, "recipient": entry.recipient, "recipient_type": entry.recipient_type,
            "created_at": iso(entry.created_at)}


@admin_blueprint.post("/services/<service_id>/users")
@documented("Add a team member (trial services may send to them).", {201: responses.team_member},
            body=admin_schemas.create_user, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_user(service_id: str) -> tuple[Response, int]:
    find_service(service_id)
    data = validate(admin_schemas.create_user, json_body())
    member = add_team_member(service_id, email_address=data.get("email_address"),
                             mobile_number=data.get("mobile_number"))
    return jsonify(team_member_json(member)), 201


@admin_blueprint.get("/services/<service_id>/users")
@documented("The service's team members.", {200: responses.team_members},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_users(service_id: str) -> Response:
    return jsonify({"users": [team_member_json(member) for member in list_team_members(service_id)]})


@admin_blueprint.delete("/services/<service_id>/users/<member_id>")
@documented("Remove a team member.", {204: None},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def delete_user(service_id: str, member_id: str) -> tuple[str, int]:
    remove_team_member(service_id, member_id)
    return "", 204


@admin_blueprint.post("/services/<service_id>/guest-list")
@documented("Add a recipient to the guest list (200 when it was already there).",
            {201: responses.guest, 200: responses.guest}, body=admin_schemas.create_guest_list_entry,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_guest(service_id: str) -> tuple[Response, int]:
    find_service(service_id)
    data = validate(admin_schemas.create_guest_list_entry, json_body())
    entry, created = add_guest(service_id, data["recipient"])
    return jsonify(guest_list_json(entry)), 201 if created else 200


@admin_blueprint.get("/services/<service_id>/guest-list")
@documented("The service's guest list.", {200: responses.guest_list},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_guest_list(service_id: str) -> Response:
    return jsonify({"guest_list": [guest_list_json(entry) for entry in list_guests(service_id)]})


@admin_blueprint.delete("/services/<service_id>/guest-list/<entry_id>")
@documented("Remove a recipient from the guest list.", {204: None},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def delete_guest(service_id: str, entry_id: str) -> tuple[str, int]:
    remove_guest(service_id, entry_id)
    return "", 204
