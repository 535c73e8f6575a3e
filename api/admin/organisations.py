"""Organisations through the admin API: the rules in core.organisations, core.organisation_members,
core.organisation_usage and core.go_live; the platform admin's search (core.search).

A request may name a console user (`?on_behalf_of=<user id>`): it is then answered as that user may see
it (404 for an organisation they are not a member of, 403 for a change only its admins may make) and
recorded as made by them.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from flask import Response, jsonify, request

from api.admin import organisation_schemas as schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.admin.go_live import status_json
from api.admin.history import event_json
from api.admin.on_behalf import acting, caller
from api.admin.services import service_json
from api.openapi import documented
from api.request_body import integer_argument, json_body
from api.schema import uuid_property, validate
from core import organisation_members as members, organisations as orgs
from core.go_live import ONLY_ADMINS, approve_for_organisation, check_organisation_step
from core.organisation_usage import OrganisationUsage, organisation_usage
from core.search import search
from core.services import find_service
from models.organisation import ADMIN, Organisation, OrganisationUser, role_in
from models.user import User
from pipeline.domain.errors import NoResultFound, NotPermitted, ValidationError
from pipeline.domain.formatting import iso
from workers.platform_email import send_platform_email

ONLY_PLATFORM_ADMINS = "Only a platform admin can do this"
_path = schemas.organisation_path


def _organisation(organisation_id: str, user: User | None, *, manage: bool = False) -> Organisation:
    if user is None:
        return orgs.find_organisation(organisation_id)
    organisation = orgs.visible_organisation(user, organisation_id)
    if manage and not user.platform_admin and role_in(user, organisation.id) != ADMIN:
        raise NotPermitted(ONLY_ADMINS)
    return organisation


def _platform_only(user: User | None) -> None:
    if user is not None and not user.platform_admin:
        raise NotPermitted(ONLY_PLATFORM_ADMINS)


def organisation_json(organisation: Organisation) -> dict[str, Any]:
    return {"id": str(organisation.id), **orgs.values_of(organisation), "domains": orgs.domains_of(organisation),
            "created_at": iso(organisation.created_at), "updated_at": iso(organisation.updated_at)}


def member_json(row: OrganisationUser) -> dict[str, Any]:
    return {"user_id": str(row.user_id), "name": row.user.name, "email_address": row.user.email_address,
            "role": row.role, "created_at": iso(row.created_at)}


def usage_json(usage: OrganisationUsage) -> dict[str, Any]:
    assert usage.total is not None
    return {"organisation_id": str(usage.organisation.id), "month": usage.month,
            "services": [{**dataclasses.asdict(one.usage), "service_name": one.service.name} for one in usage.services],
            "total": {**dataclasses.asdict(usage.total), "service_id": None}}


@admin_blueprint.get("/organisations")
@documented("Organisations by name; `search` matches a part of a name or domain, or an id.",
            {200: schemas.organisations}, query=schemas.list_query)
def get_organisations() -> Response:
    validate(schemas.list_query, dict(request.args))
    user = caller()
    found = orgs.list_organisations(request.args.get("search"))
    if user is not None and not user.platform_admin:
        mine = {o.id for o in orgs.organisations_of(user)}
        found = [o for o in found if o.id in mine]
    return jsonify({"organisations": [organisation_json(o) for o in found]})


@admin_blueprint.post("/organisations")
@documented("A new organisation.", {201: schemas.organisation}, body=schemas.create_organisation,
            query=schemas.on_behalf_query)
def post_organisation() -> tuple[Response, int]:
    with acting() as user:
        _platform_only(user)
        data = validate(schemas.create_organisation, json_body())
        return jsonify(organisation_json(orgs.create_organisation(**data))), 201


@admin_blueprint.get("/organisations/<organisation_id>")
@documented("One organisation.", {200: schemas.organisation}, path=_path, query=schemas.on_behalf_query)
def get_organisation(organisation_id: str) -> Response:
    return jsonify(organisation_json(_organisation(organisation_id, caller())))


@admin_blueprint.patch("/organisations/<organisation_id>")
@documented("Change an organisation's name, kind, language, time zone or rate agreement.",
            {200: schemas.organisation}, body=schemas.update_organisation, path=_path, query=schemas.on_behalf_query)
def patch_organisation(organisation_id: str) -> Response:
    with acting() as user:
        _organisation(organisation_id, user)
        _platform_only(user)
        changes = validate(schemas.update_organisation, json_body())
        return jsonify(organisation_json(orgs.update_organisation(organisation_id, **changes)))


@admin_blueprint.post("/organisations/<organisation_id>/domains")
@documented("Claim an email domain (refused when another organisation has it).", {201: schemas.organisation},
            body=schemas.add_domain, path=_path, query=schemas.on_behalf_query)
def post_domain(organisation_id: str) -> tuple[Response, int]:
    with acting() as user:
        _organisation(organisation_id, user, manage=True)
        orgs.add_domain(organisation_id, validate(schemas.add_domain, json_body())["domain"])
        return jsonify(organisation_json(orgs.find_organisation(organisation_id))), 201


@admin_blueprint.delete("/organisations/<organisation_id>/domains/<domain>")
@documented("Give up an email domain.", {204: None}, path=_path, query=schemas.on_behalf_query)
def delete_domain(organisation_id: str, domain: str) -> tuple[str, int]:
    with acting() as user:
        _organisation(organisation_id, user, manage=True)
        orgs.remove_domain(organisation_id, domain)
    return "", 204


@admin_blueprint.get("/organisations/<organisation_id>/members")
@documented("The organisation's members and their roles.", {200: schemas.members}, path=_path,
            query=schemas.on_behalf_query)
def get_members(organisation_id: str) -> Response:
    organisation = _organisation(organisation_id, caller())
    return jsonify({"members": [member_json(row) for row in members.members_of(organisation)]})


@admin_blueprint.post("/organisations/<organisation_id>/members")
@documented("Add a console user as admin or member.", {201: schemas.member}, body=schemas.add_member,
            path=_path, query=schemas.on_behalf_query)
def post_member(organisation_id: str) -> tuple[Response, int]:
    with acting() as user:
        _organisation(organisation_id, user, manage=True)
        data = validate(schemas.add_member, json_body())
        return jsonify(member_json(members.add_member(organisation_id, data["email_address"], data["role"]))), 201


@admin_blueprint.patch("/organisations/<organisation_id>/members/<user_id>")
@documented("Change a member's role (the last admin stays admin).", {200: schemas.member},
            body=schemas.change_member, path=_path, query=schemas.on_behalf_query)
def patch_member(organisation_id: str, user_id: str) -> Response:
    with acting() as user:
        _organisation(organisation_id, user, manage=True)
        role = validate(schemas.change_member, json_body())["role"]
        return jsonify(member_json(members.change_role(organisation_id, user_id, role)))


@admin_blueprint.delete("/organisations/<organisation_id>/members/<user_id>")
@documented("Remove a member (not the last admin).", {204: None}, path=_path, query=schemas.on_behalf_query)
def delete_member(organisation_id: str, user_id: str) -> tuple[str, int]:
    with acting() as user:
        _organisation(organisation_id, user, manage=True)
        members.remove_member(organisation_id, user_id)
    return "", 204


@admin_blueprint.get("/organisations/<organisation_id>/services")
@documented("The organisation's services.", {200: schemas.services}, path=_path, query=schemas.on_behalf_query)
def get_organisation_services(organisation_id: str) -> Response:
    organisation = _organisation(organisation_id, caller())
    return jsonify({"services": [service_json(s) for s in orgs.services_in(organisation)]})


@admin_blueprint.post("/organisations/<organisation_id>/services")
@documented("Put a service in the organisation (out of any other); it keeps only the brands offered here.",
            {201: schemas.services}, body=schemas.add_service, path=_path, query=schemas.on_behalf_query)
def post_organisation_service(organisation_id: str) -> tuple[Response, int]:
    with acting() as user:
        _organisation(organisation_id, user)
        _platform_only(user)
        service_id = validate(schemas.add_service, json_body())["service_id"]
        orgs.add_service(organisation_id, service_id)
        organisation = orgs.find_organisation(organisation_id)
        return jsonify({"services": [service_json(s) for s in orgs.services_in(organisation)]}), 201


@admin_blueprint.delete("/organisations/<organisation_id>/services/<service_id>")
@documented("Take a service out of the organisation.", {204: None}, path=_path, query=schemas.on_behalf_query)
def delete_organisation_service(organisation_id: str, service_id: str) -> tuple[str, int]:
    with acting() as user:
        _organisation(organisation_id, user)
        _platform_only(user)
        orgs.remove_service(organisation_id, service_id)
    return "", 204


def _brands(organisation: Organisation) -> dict[str, Any]:
    email, letter = members.brands_of(organisation)
    return {"email": [{"id": str(b.id), "name": b.name} for b in email],
            "letter": [{"id": str(b.id), "name": b.name} for b in letter]}


@admin_blueprint.get("/organisations/<organisation_id>/brands")
@documented("The brands the organisation's services may choose.", {200: schemas.brands}, path=_path,
            query=schemas.on_behalf_query)
def get_brands(organisation_id: str) -> Response:
    return jsonify(_brands(_organisation(organisation_id, caller())))


@admin_blueprint.post("/organisations/<organisation_id>/brands")
@documented("Offer an email or letter brand to the organisation's services.", {201: schemas.brands},
            body=schemas.add_brand, path=_path, query=schemas.on_behalf_query)
def post_brand(organisation_id: str) -> tuple[Response, int]:
    with acting() as user:
        organisation = _organisation(organisation_id, user, manage=True)
        data = validate(schemas.add_brand, json_body())
        try:
            members.add_brand(organisation_id, data["kind"], data["brand_id"])
        except NoResultFound:
            raise ValidationError(f"brand_id is not {'an email' if data['kind'] == 'email' else 'a letter'} brand") \
                from None
        return jsonify(_brands(organisation)), 201


@admin_blueprint.delete("/organisations/<organisation_id>/brands/<kind>/<brand_id>")
@documented("Stop offering a brand.", {204: None}, path=_path, query=schemas.on_behalf_query)
def delete_brand(organisation_id: str, kind: str, brand_id: str) -> tuple[str, int]:
    with acting() as user:
        _organisation(organisation_id, user, manage=True)
        members.remove_brand(organisation_id, kind, brand_id)
    return "", 204


@admin_blueprint.get("/organisations/<organisation_id>/usage")
@documented("What each of the organisation's services sent with live keys in a month, its cost, and the total.",
            {200: schemas.organisation_usage}, query=schemas.usage_query, path=_path)
def get_organisation_usage(organisation_id: str) -> Response:
    year, month = integer_argument("year"), integer_argument("month")
    _organisation(organisation_id, caller())
    validate(schemas.usage_query, {key: value for key, value in (("year", year), ("month", month))
                                   if value is not None})
    return jsonify(usage_json(organisation_usage(organisation_id, year, month)))


@admin_blueprint.get("/organisations/<organisation_id>/history")
@documented("Every change made to the organisation, newest first.", {200: schemas.history}, path=_path,
            query=schemas.on_behalf_query)
def get_organisation_history(organisation_id: str) -> Response:
    _organisation(organisation_id, caller())
    return jsonify({"events": [event_json(e) for e in members.organisation_history(organisation_id)]})


@admin_blueprint.post("/services/<service_id>/go-live/organisation-approve")
@documented("The organisation admin's approval of the waiting request: it goes on to the platform admin.",
            {200: responses.go_live_status}, path={"service_id": uuid_property()},
            query=schemas.on_behalf_query)
def post_organisation_approve(service_id: str) -> Response:
    with acting() as user:
        check_organisation_step(user, find_service(service_id))
        return jsonify(status_json(approve_for_organisation(service_id, send_email=send_platform_email)))


@admin_blueprint.get("/search")
@documented("The platform admin's search: users and services by name, email address or id.",
            {200: schemas.search_results}, query=schemas.search_query)
def get_search() -> Response:
    validate(schemas.search_query, dict(request.args))
    found = search(request.args["q"])
    return jsonify({"users": [{"id": str(u.id), "name": u.name, "email_address": u.email_address,
                               "platform_admin": u.platform_admin} for u in found.users],
                    "services": [service_json(s) for s in found.services]})
