"""Folders of a service's templates, and filing templates in them (the console's template list).

Every change is recorded in the service's history, as the other admin functions do.
"""
from __future__ import annotations

from typing import Any

from api.admin.services import find_service
from api.errors import NoResultFound, ValidationError
from models import audit
from models.db import database, is_uuid
from models.service import Service
from models.template import Template
from models.template_folder import TemplateFolder

NAME_LIMIT = 255


def _name(value: Any) -> str:
    name = value.strip() if isinstance(value, str) else ""
    if not name:
        raise ValidationError("name cannot be blank")
    if len(name) > NAME_LIMIT:
        raise ValidationError(f"name must be {NAME_LIMIT} characters or fewer")
    return name


def _folder(service: Service, folder_id: Any) -> TemplateFolder:
    folder = (TemplateFolder.get_or_none((TemplateFolder.id == folder_id) & (TemplateFolder.service == service))
              if isinstance(folder_id, str) and is_uuid(folder_id) else None)
    if folder is None:
        raise NoResultFound()
    return folder


def _folder_or_top(service: Service, folder_id: Any, field: str) -> TemplateFolder | None:
    if folder_id is None:
        return None
    try:
        return _folder(service, folder_id)
    except NoResultFound:
        raise ValidationError(f"{field} is not a folder of this service") from None


def folder_json(folder: TemplateFolder) -> dict[str, Any]:
    return {"id": str(folder.id), "name": folder.name, "parent_id": str(folder.parent_id) if folder.parent_id else None}


def add_folder(service_id: str, data: dict[str, Any]) -> dict[str, Any]:
    service = find_service(service_id)
    name = _name(data.get("name"))
    parent = _folder_or_top(service, data.get("parent_id"), "parent_id")
    with database.atomic():
        folder = TemplateFolder.create(service=service, name=name, parent_id=parent.id if parent else None)
        audit.record(service.id, "template_folder.create", subject_id=folder.id, after=folder_json(folder))
    return folder_json(folder)


def rename_folder(service_id: str, folder_id: str, data: dict[str, Any]) -> dict[str, Any]:
    service = find_service(service_id)
    folder = _folder(service, folder_id)
    name = _name(data.get("name"))
    if name != folder.name:
        with database.atomic():
            audit.record(service.id, "template_folder.rename", subject_id=folder.id,
                         before={"name": folder.name}, after={"name": name})
            folder.name = name
            folder.save()
    return folder_json(folder)


def delete_folder(service_id: str, folder_id: str) -> None:
    """Only an empty folder goes: no folders inside it and no templates in use filed in it."""
    service = find_service(service_id)
    folder = _folder(service, folder_id)
    if (TemplateFolder.select().where(TemplateFolder.parent_id == folder.id).exists()
            or Template.select().where((Template.folder_id == folder.id) & (Template.archived == False)).exists()):  # noqa: E712
        raise ValidationError("Only an empty folder can be deleted")
    with database.atomic():
        # Archived templates filed here stay readable in old messages; they move to the top level.
        Template.update(folder_id=None).where(Template.folder_id == folder.id).execute()
        audit.record(service.id, "template_folder.delete", subject_id=folder.id, before=folder_json(folder))
        folder.delete_instance()


def move_templates(service_id: str, data: dict[str, Any]) -> int:
    """File the templates named in ``template_ids`` in the folder ``folder_id`` (None: the top level);
    returns how many moved."""
    service = find_service(service_id)
    ids = data.get("template_ids") or []
    if not ids:
        raise ValidationError("Choose at least one template to move")
    if not all(isinstance(i, str) and is_uuid(i) for i in ids):
        raise ValidationError("template_ids are not templates of this service")
    folder = _folder_or_top(service, data.get("folder_id"), "folder_id")
    templates = list(Template.select().where((Template.id.in_(ids)) & (Template.service == service)
                                             & (Template.archived == False)))  # noqa: E712
    if len(templates) != len(set(ids)):
        raise ValidationError("template_ids are not templates of this service")
    target = folder.id if folder else None
    moving = [t for t in templates if t.folder_id != target]
    with database.atomic():
        for template in moving:
            audit.record(service.id, "template.move", subject_id=template.id,
                         before={"folder_id": template.folder_id}, after={"folder_id": target})
        Template.update(folder_id=target).where(Template.id.in_([t.id for t in moving])).execute()
    return len(moving)

