"""Removing files after their retention period (and stray files no notification ever owned)."""
from __future__ import annotations

import datetime
import logging
import uuid

from models.db import database, utcnow
from models.document import Document, storage_key
from pipeline.stages.documents.storage import keys_older_than, storage

log = logging.getLogger(__name__)

BATCH = 500
# A file written by a send whose transaction then rolled back has no row; old enough, it never will.
ORPHAN_AFTER = datetime.timedelta(days=1)


def delete_expired_files(now: datetime.datetime | None = None) -> int:
    """Delete expired files, bytes first and then the row (a row without bytes reads as expired,
    bytes without a row would be unreachable). Returns how many were deleted."""
    now = now or utcnow()
    files = storage()
    deleted = 0
    while True:
        batch = list(Document.select(Document.id, Document.service).where(Document.expires_at <= now).limit(BATCH))
        if not batch:
            break
        for document in batch:
            files.delete(storage_key(document.service_id, document.id))
        with database.atomic():
            Document.delete().where(Document.id.in_([d.id for d in batch])).execute()
        deleted += len(batch)
    if deleted:
        log.info("deleted %d expired files sent by email", deleted)
    return deleted


def delete_orphaned_files(age: datetime.timedelta = ORPHAN_AFTER) -> int:
    files = storage()
    deleted = 0
    for key in keys_older_than(files, age):
        try:
            file_id = uuid.UUID(key.split("/", 1)[1])
        except ValueError:
            continue  # not a name we write
        if not Document.select().where(Document.id == file_id).exists():
            files.delete(key)
            deleted += 1
    return deleted
