"""A messages report (CSV) being built in the background for a console user: the filters it was asked
for, how far the worker got, and whether the file is ready in storage."""
from __future__ import annotations

import uuid

import peewee

from models.db import BaseModel, JSONField, utcnow, uuid_pk
from models.service import Service

PENDING = "pending"
READY = "ready"
FAILED = "failed"


class MessageReport(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    created_by_user_id = peewee.UUIDField(null=True)
    filters = JSONField()  # the messages list's search (its text and public filter names), as JSON
    language = peewee.CharField(null=True)  # of the console page that asked: the file's words; None is Dutch
    status = peewee.CharField(default=PENDING)
    rows_total = peewee.IntegerField(null=True)  # known once the worker has counted the matches
    rows_written = peewee.IntegerField(default=0)
    created_at = peewee.DateTimeField(default=utcnow)  # the report holds the messages accepted until then
    finished_at = peewee.DateTimeField(null=True)

    class Meta:
        table_name = "message_report"
        indexes = ((("service", "created_at"), False),)
