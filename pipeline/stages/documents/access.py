"""The download side: find a file from its link, check the recipient's address, read the bytes."""
from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from models.db import utcnow
from models.document import Document
from pipeline.domain.recipients.email_address import format_email_for_comparison
from pipeline.infrastructure.storage import BlobNotFound
from pipeline.stages.documents import crypto
from pipeline.stages.documents.storage import storage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Found:
    document: Document | None  # None: no such file, or the key is wrong (the caller cannot tell which)
    key: bytes | None
    expired: bool = False


NOT_FOUND = Found(None, None)


def find(service_id: str, file_id: str, key_text: str | None) -> Found:
    """The file a link points at. Anything malformed or wrong is simply "not found", never an error."""
    key = crypto.key_from_text(key_text)
    try:
        service_uuid, file_uuid = uuid.UUID(service_id), uuid.UUID(file_id)
    except ValueError:
        return NOT_FOUND
    if key is None:
        return NOT_FOUND
    document = Document.get_or_none((Document.id == file_uuid) & (Document.service == service_uuid))
    if document is None or not crypto.same(document.key_digest, crypto.key_digest(key)):
        return NOT_FOUND
    return Found(document, key, expired=document.expires_at <= utcnow())


def recipient_matches(found: Found, typed: str) -> bool:
    """Whether the typed address is the one the file was sent to, ignoring case and outer spaces."""
    if found.document is None or found.key is None or not found.document.recipient_digest:
        return False
    digest = crypto.recipient_digest(found.key, format_email_for_comparison(typed))
    return crypto.same(found.document.recipient_digest, digest)


def read(found: Found) -> bytes | None:
    """The file's bytes, or None when the stored file is gone (expired and removed) or damaged."""
    document = found.document
    if document is None or found.key is None:
        return None
    try:
        return crypto.decrypt(found.key, storage().get(document.storage_key), document.id.bytes)
    except BlobNotFound:
        return None
    except crypto.DecryptionFailed:
        log.error("stored file %s does not decrypt with a key that matches its digest", document.id)
        return None
