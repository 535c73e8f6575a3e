"""Folders of a service's templates, and filing templates in them (the console's template list, and
/admin/services/<id>/template-folders).

The rules (and the history each change leaves) are core/template_folders.py's; here are the routes
and their bodies' schemas.
"""
from __future__ import annotations

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import json_body
from api.schema import uuid_property, validate
from core import template_folders as folders
from core.services import find_service
from models.template_folder import folder_tree

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


@admin_blueprint.get("/services/<service_id>/template-folders")
@documented("The service's template folders, each parent before its folders.", {200: responses.template_folders},
            path={"service_id": _PATH["service_id"]})
def get_folders(service_id: str) -> Response:
    tree = folder_tree(find_service(service_id).id)
    return jsonify({"template_folders": [folders.folder_values(folder) for folder, _depth in tree]})


@admin_blueprint.post("/services/<service_id>/template-folders")
@documented("Make a template folder (at the top, or inside parent_id).", {201: responses.template_folder},
            body=create_folder_schema, path={"service_id": _PATH["service_id"]})
def post_folder(service_id: str) -> tuple[Response, int]:
    find_service(service_id)
    body = validate(create_folder_schema, json_body())
    return jsonify(folders.folder_values(folders.add_folder(service_id, **body))), 201


@admin_blueprint.post("/services/<service_id>/template-folders/<folder_id>")
@documented("Rename a template folder.", {200: responses.template_folder}, body=rename_folder_schema, path=_PATH)
def post_folder_rename(service_id: str, folder_id: str) -> Response:
    folders.find_folder(find_service(service_id), folder_id)
    name = validate(rename_folder_schema, json_body())["name"]
    return jsonify(folders.folder_values(folders.rename_folder(service_id, folder_id, name=name)))


@admin_blueprint.delete("/services/<service_id>/template-folders/<folder_id>")
@documented("Delete an empty template folder.", {204: None}, path=_PATH)
def delete_folder_route(service_id: str, folder_id: str) -> tuple[str, int]:
    folders.delete_folder(service_id, folder_id)
    return "", 204


@admin_blueprint.post("/services/<service_id>/template-folders/move")
@documented("File templates in a folder (folder_id null: the top level).", {200: responses.templates_moved},
            body=move_schema, path={"service_id": _PATH["service_id"]})
def post_move(service_id: str) -> Response:
    find_service(service_id)
    body = validate(move_schema, json_body())
    return jsonify({"moved": folders.move_templates(service_id, body["template_ids"], body["folder_id"])})
