"""Folders of a service's templates, and filing templates in them.

Every change is recorded in the service's history, as the other operations on a service are.
"""
from __future__ import annotations

from core.services import find_service
from models import audit
from models.db import database, is_uuid
from models.service import Service
from models.template import Template
from models.template_folder import TemplateFolder
from pipeline.domain.errors import NoResultFound, Refusal, ValidationError

FOLDER_NOT_EMPTY = Refusal("folder_not_empty", "Only an empty folder can be deleted")
NOTHING_TO_MOVE = Refusal("no_templates_chosen", "Choose at least one template to move")


def find_folder(service: Service, folder_id: str) -> TemplateFolder:
    """The service's folder; NoResultFound for an id that is malformed, unknown or another service's."""
    folder = (TemplateFolder.get_or_none((TemplateFolder.id == folder_id) & (TemplateFolder.service == service))
              if is_uuid(folder_id) else None)
    if folder is None:
        raise NoResultFound()
    return folder


def _folder_or_top(service: Service, folder_id: str | None, field: str) -> TemplateFolder | None:
    if folder_id is None:
        return None
    try:
        return find_folder(service, folder_id)
    except NoResultFound:
        raise ValidationError(f"{field} is not a folder of this service") from None


def folder_values(folder: TemplateFolder) -> dict[str, str | None]:
    """The folder as plain values: what the history records (and the admin API answers)."""
    return {"id": str(folder.id), "name": folder.name, "parent_id": str(folder.parent_id) if folder.parent_id else None}


def add_folder(service_id: str, *, name: str, parent_id: str | None = None) -> TemplateFolder:
    """A folder at the top level, or inside the folder ``parent_id``."""
    service = find_service(service_id)
    parent = _folder_or_top(service, parent_id, "parent_id")
    with database.atomic():
        folder = TemplateFolder.create(service=service, name=name.strip(), parent_id=parent.id if parent else None)
        audit.record(service.id, "template_folder.create", subject_id=folder.id, after=folder_values(folder))
    return folder


def rename_folder(service_id: str, folder_id: str, *, name: str) -> TemplateFolder:
    service = find_service(service_id)
    folder = find_folder(service, folder_id)
    name = name.strip()
    if name != folder.name:
        with database.atomic():
            audit.record(service.id, "template_folder.rename", subject_id=folder.id,
                         before={"name": folder.name}, after={"name": name})
            folder.name = name
            folder.save()
    return folder


def delete_folder(service_id: str, folder_id: str) -> None:
    """Only an empty folder goes: no folders inside it and no templates in use filed in it."""
    service = find_service(service_id)
    folder = find_folder(service, folder_id)
    if (TemplateFolder.select().where(TemplateFolder.parent_id == folder.id).exists()
            or Template.select().where((Template.folder_id == folder.id) & (Template.archived == False)).exists()):  # noqa: E712
        raise ValidationError(FOLDER_NOT_EMPTY)
    with database.atomic():
        # Archived templates filed here stay readable in old messages; they move to the top level.
        Template.update(folder_id=None).where(Template.folder_id == folder.id).execute()
        audit.record(service.id, "template_folder.delete", subject_id=folder.id, before=folder_values(folder))
        folder.delete_instance()


def move_templates(service_id: str, template_ids: list[str], folder_id: str | None) -> int:
    """File the templates in the folder ``folder_id`` (None: the top level); returns how many moved."""
    service = find_service(service_id)
    if not template_ids:
        raise ValidationError(NOTHING_TO_MOVE)
    folder = _folder_or_top(service, folder_id, "folder_id")
    not_ours = ValidationError("template_ids are not templates of this service")
    if not all(is_uuid(i) for i in template_ids):
        raise not_ours
    templates = list(Template.select().where((Template.id.in_(template_ids)) & (Template.service == service)
                                             & (Template.archived == False)))  # noqa: E712
    if len(templates) != len(set(template_ids)):
        raise not_ours
    target = folder.id if folder else None
    moving = [t for t in templates if t.folder_id != target]
    with database.atomic():
        for template in moving:
            audit.record(service.id, "template.move", subject_id=template.id,
                         before={"folder_id": template.folder_id}, after={"folder_id": target})
        Template.update(folder_id=target).where(Template.id.in_([t.id for t in moving])).execute()
    return len(moving)
