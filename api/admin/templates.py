"""Templates of a service: create, change (each change is a new version), read one, all, versions.

Responses use the v2 Template JSON, so what an operator sees here is what the clients will read.
"""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin.services import find_service
from api.errors import NoResultFound, ValidationError
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from api.v2.template.serialise import template_json
from api.admin import response_schemas as responses
from config import get_settings
from models import audit
from models.db import database
from models.service import LetterContact, Service
from models.template import Template, TemplateVersion, create_template, find_version, update_template

DEFAULT_POSTAGE = "second"
# Fields that, when they differ from the latest version, make a new version.
_CONTENT_FIELDS = ("name", "body", "subject", "postage", "letter_languages", "letter_english_subject",
                   "letter_english_body")
_BILINGUAL_FIELDS = ("letter_languages", "letter_english_subject", "letter_english_body")
_PATH = {**admin_schemas.service_path["properties"], **admin_schemas.template_path["properties"]}


def _check_fields(template_type: str, data: dict[str, Any]) -> None:
    """The rules the schema cannot say per type: what sms and email templates must not carry."""
    problems = []
    if template_type == "sms" and data.get("subject") is not None:
        problems.append("subject is not allowed for sms templates")
    if template_type in ("email", "letter") and "subject" in data and data["subject"] is None:
        problems.append("subject cannot be blank")
    if template_type != "letter":
        problems += [f"{field} is only allowed for letter templates"
                     for field in ("postage", "letter_contact_id", *_BILINGUAL_FIELDS) if data.get(field) is not None]
    if problems:
        raise ValidationError(*problems)


def _check_bilingual(merged: dict[str, Any]) -> None:
    """A Dutch-then-English letter needs its English heading and body (given now or kept from before)."""
    if merged.get("letter_languages") == "dutch_then_english":
        problems = [f"{field} is required for dutch_then_english letters"
                    for field in ("letter_english_subject", "letter_english_body") if not merged.get(field)]
        if problems:
            raise ValidationError(*problems)


def admin_template_json(version: TemplateVersion) -> dict[str, Any]:
    """The v2 Template plus what only the admin API shows: a letter's languages and English version."""
    result = template_json(version)
    if version.template.template_type == "letter":
        result.update({field: getattr(version, field) for field in _BILINGUAL_FIELDS})
        result["letter_languages"] = version.letter_languages or "single"
    return result


def _letter_contact(service: Service, contact_id: str | None) -> LetterContact | None:
    if contact_id is None:
        return None
    contact = LetterContact.get_or_none((LetterContact.id == contact_id) & (LetterContact.service == service))
    if contact is None:
        raise ValidationError("letter_contact_id is not a letter contact of this service")
    return contact


def _created_by(data: dict[str, Any]) -> str:
    # Without a named person, the admin client itself is who made the change.
    return data.get("created_by") or get_settings().admin_client_id


def find_latest(service: Service, template_id: str) -> TemplateVersion:
    validate(admin_schemas.template_path, {"template_id": template_id})
    latest = find_version(service, template_id)
    if latest is None:
        raise NoResultFound()
    return latest


def add_template(service_id: str, data: Any) -> dict[str, Any]:
    service = find_service(service_id)
    validate(admin_schemas.create_template, data)
    template_type = data["type"]
    _check_fields(template_type, data)
    _check_bilingual(data)
    with database.atomic():
        template = create_template(
            service, template_type=template_type, name=data["name"], body=data["body"],
            subject=data.get("subject") if template_type != "sms" else None,
            postage=data.get("postage", DEFAULT_POSTAGE) if template_type == "letter" else None,
            letter_contact=_letter_contact(service, data.get("letter_contact_id")),
            created_by=_created_by(data),
            **({field: data[field] for field in _BILINGUAL_FIELDS if field in data} if template_type == "letter" else {}),
        )
        audit.record(service.id, "template.create", subject_id=template.id,
                     after={"name": data["name"], "type": template_type, "version": 1})
    return admin_template_json(find_version(service, template.id))


def change_template(service_id: str, template_id: str, data: Any) -> dict[str, Any]:
    """A new version with the fields that differ from the latest; the latest itself when none do
    (created_by alone is who changed it, not a change)."""
    service = find_service(service_id)
    latest = find_latest(service, template_id)
    validate(admin_schemas.update_template, data)
    _check_fields(latest.template.template_type, data)
    _check_bilingual({**{f: getattr(latest, f) for f in _BILINGUAL_FIELDS}, **data})
    changes: dict[str, Any] = {f: data[f] for f in _CONTENT_FIELDS if f in data and data[f] != getattr(latest, f)}
    if "letter_contact_id" in data:
        contact = _letter_contact(service, data["letter_contact_id"])
        if (contact.id if contact else None) != latest.letter_contact_id:
            changes["letter_contact"] = contact
    if not changes:
        return admin_template_json(latest)
    with database.atomic():
        update_template(latest.template, created_by=_created_by(data), **changes)
        new = find_version(service, template_id)
        old_values = {"version": latest.version, **{f: getattr(latest, f) for f in changes if f in _CONTENT_FIELDS}}
        new_values = {"version": new.version, **{f: getattr(new, f) for f in changes if f in _CONTENT_FIELDS}}
        if "letter_contact" in changes:
            old_values["letter_contact_id"], new_values["letter_contact_id"] = latest.letter_contact_id, new.letter_contact_id
        audit.record(service.id, "template.update", subject_id=template_id, before=old_values, after=new_values)
    return admin_template_json(new)


def archive_template(service_id: str, template_id: str) -> None:
    """Delete a template as Notify does: it is archived, so messages sent from it keep their template."""
    service = find_service(service_id)
    latest = find_latest(service, template_id)
    with database.atomic():
        Template.update(archived=True).where(Template.id == latest.template.id).execute()
        audit.record(service.id, "template.archive", subject_id=template_id,
                     before={"name": latest.name, "version": latest.version})


def get_template(service_id: str, template_id: str) -> dict[str, Any]:
    return admin_template_json(find_latest(find_service(service_id), template_id))


def list_templates(service_id: str) -> dict[str, Any]:
    service = find_service(service_id)
    rows = (
        TemplateVersion.select(TemplateVersion, Template)
        .join(Template)
        .where((Template.service == service) & (Template.archived == False)  # noqa: E712
               & (TemplateVersion.version == Template.current_version))
        .order_by(Template.created_at, Template.id)
    )
    return {"templates": [admin_template_json(row) for row in rows]}


def list_versions(service_id: str, template_id: str) -> dict[str, Any]:
    template = find_latest(find_service(service_id), template_id).template
    rows = (TemplateVersion.select(TemplateVersion, Template).join(Template)
            .where(TemplateVersion.template == template).order_by(TemplateVersion.version))
    return {"versions": [admin_template_json(row) for row in rows]}


@admin_blueprint.post("/services/<service_id>/templates")
@documented("Create a template (version 1).", {201: responses.template}, body=admin_schemas.create_template, path=_PATH)
def post_template(service_id: str) -> tuple[Response, int]:
    return jsonify(add_template(service_id, json_body())), 201


@admin_blueprint.post("/services/<service_id>/templates/<template_id>")
@documented("Change a template: a new version when anything differs.", {200: responses.template},
            body=admin_schemas.update_template, path=_PATH)
def post_template_update(service_id: str, template_id: str) -> Response:
    return jsonify(change_template(service_id, template_id, json_body()))


@admin_blueprint.get("/services/<service_id>/templates")
@documented("The service's templates (latest versions).", {200: responses.templates}, path=_PATH)
def get_templates(service_id: str) -> Response:
    return jsonify(list_templates(service_id))


@admin_blueprint.get("/services/<service_id>/templates/<template_id>")
@documented("A template's latest version.", {200: responses.template}, path=_PATH)
def get_one_template(service_id: str, template_id: str) -> Response:
    return jsonify(get_template(service_id, template_id))


@admin_blueprint.get("/services/<service_id>/templates/<template_id>/versions")
@documented("Every version of a template, oldest first.", {200: responses.template_versions}, path=_PATH)
def get_template_versions(service_id: str, template_id: str) -> Response:
    return jsonify(list_versions(service_id, template_id))
