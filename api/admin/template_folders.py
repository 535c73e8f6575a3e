"""Folders of a service's templates, and filing templates in them (the console's template list, and
/admin/services/<id>/template-folders).

Every change is recorded in the service's history, as the other admin functions do.
"""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.admin.services import find_service
from api.errors import NoResultFound, ValidationError
from api.openapi import documented
from api.request_body import json_body
from api.schema import uuid_property, validate
from models import audit
from models.db import database, is_uuid
from models.service import Service
from models.template import Template
from models.template_folder import TemplateFolder, folder_tree

_NAME = {"type": "string", "format": "non-blank", "maxLength": 255}
_FOLDER_ID = {"type": ["string", "null"], "format": "uuid"}
create_folder_schema = {"type": "object", "required": ["name"], "properties": {"name": _NAME, "parent_id": _FOLDER_ID},
                        "additionalProperties": False}
rename_folder_schema = {"type": "object", "required": ["name"], "properties": {"name": _NAME},
                        "additionalProperties": False}
move_schema = {"type": "object", "required": ["template_ids", "folder_id"], "additionalProperties": False,
               "properties": {"template_ids": {"type": "array", "items": uuid_property(), "maxItems": 1000},
                              "folder_id": _FOLDER_ID}}
_PATH = {**admin_schemas.service_path["properties"], "folder_id": uuid_property()}


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


def list_folders(service_id: str) -> dict[str, Any]:
    """The service's folders, each parent before the folders inside it."""
    return {"template_folders": [folder_json(folder) for folder, _depth in folder_tree(find_service(service_id).id)]}


def add_folder(service_id: str, data: Any) -> dict[str, Any]:
    service = find_service(service_id)
    name = validate(create_folder_schema, data)["name"].strip()
    parent = _folder_or_top(service, data.get("parent_id"), "parent_id")
    with database.atomic():
        folder = TemplateFolder.create(service=service, name=name, parent_id=parent.id if parent else None)
        audit.record(service.id, "template_folder.create", subject_id=folder.id, after=folder_json(folder))
    return folder_json(folder)


def rename_folder(service_id: str, folder_id: str, data: Any) -> dict[str, Any]:
    service = find_service(service_id)
    folder = _folder(service, folder_id)
    name = validate(rename_folder_schema, data)["name"].strip()
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


def move_templates(service_id: str, data: Any) -> int:
    """File the templates named in ``template_ids`` in the folder ``folder_id`` (None: the top level);
    returns how many moved."""
    service = find_service(service_id)
    ids = validate(move_schema, data)["template_ids"]
    if not ids:
        raise ValidationError("Choose at least one template to move")
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



@admin_blueprint.get("/services/<service_id>/template-folders")
@documented("The service's template folders, each parent before its folders.", {200: responses.template_folders},
            path={"service_id": _PATH["service_id"]})
def get_folders(service_id: str) -> Response:
    return jsonify(list_folders(service_id))


@admin_blueprint.post("/services/<service_id>/template-folders")
@documented("Make a template folder (at the top, or inside parent_id).", {201: responses.template_folder},
            body=create_folder_schema, path={"service_id": _PATH["service_id"]})
def post_folder(service_id: str) -> tuple[Response, int]:
    return jsonify(add_folder(service_id, json_body())), 201


@admin_blueprint.post("/services/<service_id>/template-folders/<folder_id>")
@documented("Rename a template folder.", {200: responses.template_folder}, body=rename_folder_schema, path=_PATH)
def post_folder_rename(service_id: str, folder_id: str) -> Response:
    return jsonify(rename_folder(service_id, folder_id, json_body()))


@admin_blueprint.delete("/services/<service_id>/template-folders/<folder_id>")
@documented("Delete an empty template folder.", {204: None}, path=_PATH)
def delete_folder_route(service_id: str, folder_id: str) -> tuple[str, int]:
    delete_folder(service_id, folder_id)
    return "", 204


@admin_blueprint.post("/services/<service_id>/template-folders/move")
@documented("File templates in a folder (folder_id null: the top level).", {200: responses.templates_moved},
            body=move_schema, path={"service_id": _PATH["service_id"]})
def post_move(service_id: str) -> Response:
    return jsonify({"moved": move_templates(service_id, json_body())})
