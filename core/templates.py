"""Templates of a service: create, change (each change is a new version), archive, find.

The admin API, the console and the CLI make every change here, so the rules and the service's history
are the same whichever door a change came through.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from config import get_settings
from core.services import create_service, find_service
from models import audit
from models.db import database, is_uuid
from models.service import LetterContact, Service
from models.template import Template, TemplateVersion, create_template, find_version, update_template
from pipeline.domain.errors import BLANK, NoResultFound, ValidationError

DEFAULT_POSTAGE = "second"
BILINGUAL_FIELDS = ("letter_languages", "letter_english_subject", "letter_english_body")
# Fields that, when they differ from the latest version, make a new version.
_CONTENT_FIELDS = ("name", "body", "subject", "postage", *BILINGUAL_FIELDS)
_CHANGEABLE = frozenset((*_CONTENT_FIELDS, "letter_contact_id"))


def find_template(service: Service, template_id: str, version: int | None = None) -> TemplateVersion:
    """The service's template at a version (the latest when None); NoResultFound for an id that is
    malformed, unknown, another service's or archived."""
    found = find_version(service, template_id, version) if is_uuid(template_id) else None
    if found is None:
        raise NoResultFound()
    return found


def current_versions(service_id: str, *, by_name: bool = False) -> list[TemplateVersion]:
    """The service's templates in use, each at its latest version: oldest template first, or by name."""
    service = find_service(service_id)
    order = (TemplateVersion.name, Template.id) if by_name else (Template.created_at, Template.id)
    return list(
        TemplateVersion.select(TemplateVersion, Template)
        .join(Template)
        .where((Template.service == service) & (Template.archived == False)  # noqa: E712
               & (TemplateVersion.version == Template.current_version))
        .order_by(*order)
    )


def all_versions(template: Template) -> list[TemplateVersion]:
    """Every version of the template, oldest first."""
    return list(TemplateVersion.select(TemplateVersion, Template).join(Template)
                .where(TemplateVersion.template == template).order_by(TemplateVersion.version))


def _check_fields(template_type: str, given: dict[str, Any]) -> None:
    """What each type must not carry, and that an email's or letter's subject is not taken away."""
    problems = []
    if template_type == "sms" and given.get("subject") is not None:
        problems.append("subject is not allowed for sms templates")
    if template_type in ("email", "letter") and "subject" in given and given["subject"] is None:
        problems.append(BLANK.about("subject"))
    if template_type != "letter":
        problems += [f"{field} is only allowed for letter templates"
                     for field in ("postage", "letter_contact_id", *BILINGUAL_FIELDS) if given.get(field) is not None]
    if problems:
        raise ValidationError(*problems)


def _check_bilingual(merged: dict[str, Any]) -> None:
    """A Dutch-then-English letter needs its English heading and body (given now or kept from before)."""
    if merged.get("letter_languages") == "dutch_then_english":
        problems = [f"{field} is required for dutch_then_english letters"
                    for field in ("letter_english_subject", "letter_english_body") if not merged.get(field)]
        if problems:
            raise ValidationError(*problems)


def _letter_contact(service: Service, contact_id: str | None) -> LetterContact | None:
    if contact_id is None:
        return None
    contact = LetterContact.get_or_none((LetterContact.id == contact_id) & (LetterContact.service == service))
    if contact is None:
        raise ValidationError("letter_contact_id is not a letter contact of this service")
    return contact


def _created_by(name: str | None) -> str:
    # Without a named person, the admin client itself is who made the change.
    return name or get_settings().admin_client_id


def create_service_with(name: str, templates: Sequence[Mapping[str, Any]]) -> Service:
    """A new service and the templates it starts with (add_template's keyword arguments, each), in one
    transaction: a template the rules refuse makes no service either. The console's new services start
    with examples; the admin API and the CLI make a service empty (core.services.create_service)."""
    with database.atomic():
        service = create_service(name)
        for template in templates:
            add_template(str(service.id), **template)
    return service


def add_template(service_id: str, *, template_type: str, name: str, body: str, subject: str | None = None,
                 postage: str | None = None, letter_contact_id: str | None = None, created_by: str | None = None,
                 letter_languages: str | None = None, letter_english_subject: str | None = None,
                 letter_english_body: str | None = None) -> TemplateVersion:
    """Version 1 of a new template. An email or letter needs its subject (a letter's is its heading)."""
    service = find_service(service_id)
    bilingual = {"letter_languages": letter_languages, "letter_english_subject": letter_english_subject,
                 "letter_english_body": letter_english_body}
    given = {"postage": postage, "letter_contact_id": letter_contact_id, **bilingual}
    if template_type in ("email", "letter") or subject is not None:
        given["subject"] = subject
    _check_fields(template_type, given)
    _check_bilingual(bilingual)
    with database.atomic():
        template = create_template(
            service, template_type=template_type, name=name, body=body,
            subject=subject if template_type != "sms" else None,
            postage=(postage or DEFAULT_POSTAGE) if template_type == "letter" else None,
            letter_contact=_letter_contact(service, letter_contact_id),
            created_by=_created_by(created_by),
            **(bilingual if template_type == "letter" else {}),
        )
        audit.record(service.id, "template.create", subject_id=template.id,
                     after={"name": name, "type": template_type, "version": 1})
    return find_template(service, str(template.id))


def change_template(service_id: str, template_id: str, *, created_by: str | None = None,
                    **changes: Any) -> TemplateVersion:
    """A new version with the given fields (any of name, body, subject, postage, letter_contact_id and
    the bilingual letter's fields) that differ from the latest; the latest itself when none do
    (created_by alone is who changed it, not a change)."""
    unknown = set(changes) - _CHANGEABLE
    if unknown:
        raise TypeError(f"not a template field: {', '.join(sorted(unknown))}")
    service = find_service(service_id)
    latest = find_template(service, template_id)
    _check_fields(latest.template.template_type, changes)
    _check_bilingual({**{f: getattr(latest, f) for f in BILINGUAL_FIELDS}, **changes})
    differing: dict[str, Any] = {f: changes[f] for f in _CONTENT_FIELDS
                                 if f in changes and changes[f] != getattr(latest, f)}
    if "letter_contact_id" in changes:
        contact = _letter_contact(service, changes["letter_contact_id"])
        if (contact.id if contact else None) != latest.letter_contact_id:
            differing["letter_contact"] = contact
    if not differing:
        return latest
    with database.atomic():
        update_template(latest.template, created_by=_created_by(created_by), **differing)
        new = find_template(service, template_id)
        old_values = {"version": latest.version, **{f: getattr(latest, f) for f in differing if f in _CONTENT_FIELDS}}
        new_values = {"version": new.version, **{f: getattr(new, f) for f in differing if f in _CONTENT_FIELDS}}
        if "letter_contact" in differing:
            old_values["letter_contact_id"] = latest.letter_contact_id
            new_values["letter_contact_id"] = new.letter_contact_id
        audit.record(service.id, "template.update", subject_id=template_id, before=old_values, after=new_values)
    return new


def archive_template(service_id: str, template_id: str) -> None:
    """Delete a template as Notify does: it is archived, so messages sent from it keep their template."""
    service = find_service(service_id)
    latest = find_template(service, template_id)
    with database.atomic():
        Template.update(archived=True).where(Template.id == latest.template.id).execute()
        audit.record(service.id, "template.archive", subject_id=template_id,
                     before={"name": latest.name, "version": latest.version})
