"""Files sent by email: what the download page needs to know about a stored file, never its key.

The file itself lives encrypted in the file storage; its key exists only in the link in the email.
The row keeps digests derived from that key (to recognise it, and to check the recipient's address
on the download page), so neither the database nor the storage alone can read the file.
"""
from __future__ import annotations

import uuid

import peewee

from models.db import BaseModel, utcnow, uuid_pk
from models.service import Service


class Document(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="documents", on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    # Not a foreign key: notifications are purged after days, a file is kept for up to 78 weeks.
    notification_id = peewee.UUIDField(index=True)
    filename = peewee.CharField(max_length=255)
    mimetype = peewee.CharField()
    size = peewee.IntegerField()  # bytes, before encryption
    confirm_email = peewee.BooleanField()
    recipient_digest = peewee.CharField(null=True)  # HMAC of the lower-cased address, keyed by the file key
    key_digest = peewee.CharField()  # SHA-256 of the file key: tells a wrong key from a right one
    created_at = peewee.DateTimeField(default=utcnow)
    expires_at = peewee.DateTimeField(index=True)

    class Meta:
        table_name = "documents"

    @property
    def storage_key(self) -> str:
        return storage_key(self.service_id, self.id)


def storage_key(service_id: object, document_id: object) -> str:
    """Where the encrypted bytes live in the file storage."""
    return f"{service_id}/{document_id}"
