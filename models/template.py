"""Templates and their full version history; every change makes a new version."""
from __future__ import annotations

import uuid

import peewee

from models.cache import cached, settings_table
from models.db import BaseModel, utcnow, uuid_pk
from models.service import LetterContact, Service, default_of

TEMPLATE_TYPES = ("sms", "email", "letter")
# Each version keeps the fields below, so reading an old version shows it as it was.
VERSIONED_FIELDS = ("name", "body", "subject", "postage", "letter_contact", "letter_contact_block",
                    "letter_languages", "letter_english_subject", "letter_english_body")
# A letter prints in the service's language, or Dutch then English (each from a new page).
LETTER_LANGUAGES = ("single", "dutch_then_english")


@settings_table
class Template(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="templates", on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    template_type = peewee.CharField()
    current_version = peewee.IntegerField(default=1)
    archived = peewee.BooleanField(default=False)
    created_at = peewee.DateTimeField(default=utcnow)
    # The folder (models.template_folder) it is filed in; None is the service's top level.
    folder_id = peewee.UUIDField(null=True)

    class Meta:
        indexes = ((("service", "template_type"), False),)


@settings_table
class TemplateVersion(BaseModel):
    template = peewee.ForeignKeyField(Template, backref="versions", on_delete="CASCADE")
    template_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    version = peewee.IntegerField()
    name = peewee.CharField()
    body = peewee.TextField()
    subject = peewee.TextField(null=True)
    postage = peewee.CharField(null=True)
    letter_contact = peewee.ForeignKeyField(LetterContact, null=True, on_delete="SET NULL")
    letter_contact_id: uuid.UUID | None  # the key's raw value: peewee's accessor, typed here for mypy
    letter_contact_block = peewee.TextField(null=True)
    # Bilingual letters: body and subject hold the Dutch version, these the English one.
    letter_languages = peewee.CharField(null=True)
    letter_english_subject = peewee.TextField(null=True)
    letter_english_body = peewee.TextField(null=True)
    created_by = peewee.CharField()
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("template", "version"), True),)

    @property
    def bilingual(self) -> bool:
        return self.letter_languages == "dutch_then_english"

    def content_texts(self) -> list[str]:
        """Every text a send fills in (subject and body, and a bilingual letter's English ones)."""
        texts = [self.subject or "", self.body]
        if self.bilingual:
            texts += [self.letter_english_subject or "", self.letter_english_body or ""]
        return texts


def create_template(service: Service, *, template_type: str, name: str, body: str, created_by: str,
                    subject: str | None = None, postage: str | None = None,
                    letter_contact: LetterContact | None = None, **bilingual: str | None) -> Template:
    with Template._meta.database.atomic():
        template = Template.create(service=service, template_type=template_type)
        TemplateVersion.create(
            template=template, version=1, name=name, body=body, subject=subject, postage=postage,
            letter_contact=letter_contact,
            letter_contact_block=letter_contact.contact_block if letter_contact else None,
            created_by=created_by, **bilingual,
        )
    return template


def update_template(template: Template, *, created_by: str, **changes: object) -> TemplateVersion:
    """Make a new version holding the changed fields; unchanged fields carry over."""
    with Template._meta.database.atomic():
        latest = latest_version(template)
        values = {name: getattr(latest, name) for name in VERSIONED_FIELDS}
        values.update(changes)
        contact = values.get("letter_contact")
        if "letter_contact" in changes:
            values["letter_contact_block"] = contact.contact_block if contact else None
        template.current_version = latest.version + 1
        template.save()
        return TemplateVersion.create(template=template, version=template.current_version,
                                      created_by=created_by, **values)


def latest_version(template: Template) -> TemplateVersion:
    return TemplateVersion.get((TemplateVersion.template == template)
                               & (TemplateVersion.version == template.current_version))


def find_version(service: Service, template_id: object, version: int | None = None) -> TemplateVersion | None:
    """The service's template at a version (latest when None); None when unknown or another service's."""
    query = (
        TemplateVersion.select(TemplateVersion, Template)
        .join(Template)
        .where((Template.id == template_id) & (Template.service == service) & (Template.archived == False))  # noqa: E712
    )
    if version is None:
        query = query.where(TemplateVersion.version == Template.current_version)
    else:
        query = query.where(TemplateVersion.version == version)
    return query.first()


def contact_block_of(version: TemplateVersion) -> str | None:
    """A letter version's contact block: its own, else its service's default contact block (a
    template that names none takes the default, as the console's settings say)."""
    if version.template.template_type != "letter":
        return None
    if version.letter_contact_block is not None:
        return version.letter_contact_block
    service_id = version.template.service_id
    default = cached(("letter-contact", service_id), lambda: default_of(LetterContact, service_id))
    return default.contact_block if default is not None else None
