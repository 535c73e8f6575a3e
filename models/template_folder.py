"""Folders of a service's templates: a tree (each folder may sit inside another of the same service)."""
from __future__ import annotations

import peewee

from models.db import BaseModel, utcnow, uuid_pk
from models.service import Service


class TemplateFolder(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="template_folders", on_delete="CASCADE")
    name = peewee.CharField()
    # Not a foreign key to itself: a folder is only deleted empty, and the tree is read whole.
    parent_id = peewee.UUIDField(null=True)
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("service", "parent_id"), False),)


def folders_of(service_id: object) -> list[TemplateFolder]:
    return list(TemplateFolder.select().where(TemplateFolder.service == service_id)
                .order_by(TemplateFolder.name, TemplateFolder.id))


def folder_tree(service_id: object) -> list[tuple[TemplateFolder, int]]:
    """Every folder of the service with its depth, in tree order (each parent before its children)."""
    children: dict[object, list[TemplateFolder]] = {}
    for folder in folders_of(service_id):
        children.setdefault(folder.parent_id, []).append(folder)
    ordered: list[tuple[TemplateFolder, int]] = []

    def walk(parent: object, depth: int) -> None:
        for folder in children.get(parent, []):
            ordered.append((folder, depth))
            walk(folder.id, depth + 1)

    walk(None, 0)
    return ordered
