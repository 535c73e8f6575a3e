"""The send path's hook: turn prepared files in personalisation into download links.

prepare_files() runs before rendering and checks everything (options, contact details, base64, size,
virus scan, type) and encrypts; nothing is written until PreparedFiles.save(), which runs inside the
transaction that creates the notification, so a refused send leaves no file behind.
"""
from __future__ import annotations

import datetime
import logging
import secrets
import uuid
from dataclasses import dataclass, field

from config import get_settings
from models.db import utcnow
from models.document import Document, storage_key
from models.notification import Notification
from models.service import Service
from pipeline.domain.errors import BadRequestError, Unavailable
from pipeline.domain.recipients.email_address import format_email_for_comparison
from pipeline.infrastructure.virus_scan import ScannerUnavailable, scanner_from_url
from pipeline.stages.documents import crypto, filetypes, options
from pipeline.stages.documents.storage import storage

log = logging.getLogger(__name__)

EMAIL_ONLY = "Can only send a file by email"
VIRUS_FOUND = "File did not pass the virus scan"
SCANNER_DOWN = "Antivirus API error"
NOT_SET_UP = ("Send files by email has not been set up - add contact details for your service at "
              "{admin_url}/services/{service_id}/service-settings/send-files-by-email")


@dataclass
class _Pending:
    id: uuid.UUID
    key: bytes
    blob: bytes
    filename: str
    mimetype: str
    size: int
    confirm_email: bool
    retention_weeks: int


@dataclass
class PreparedFiles:
    personalisation: dict
    pending: list[_Pending] = field(default_factory=list)
    service_id: object = None

    def save(self, notification: Notification) -> None:
        """Store the files and their rows; call inside the transaction that creates the notification."""
        if not self.pending:
            return
        files = storage()
        recipient = format_email_for_comparison(notification.normalised_to or notification.to)
        written: list[str] = []
        now = utcnow()
        try:
            for item in self.pending:
                key = storage_key(self.service_id, item.id)
                files.put(key, item.blob)
                written.append(key)
                Document.create(
                    id=item.id, service=self.service_id, notification_id=notification.id, filename=item.filename,
                    mimetype=item.mimetype, size=item.size, confirm_email=item.confirm_email,
                    recipient_digest=crypto.recipient_digest(item.key, recipient) if item.confirm_email else None,
                    key_digest=crypto.key_digest(item.key), created_at=now,
                    expires_at=now + datetime.timedelta(weeks=item.retention_weeks),
                )
        except BaseException:
            for key in written:  # the transaction rolls the rows back; the bytes are ours to remove
                files.delete(key)
            raise


def is_prepared_file(value: object) -> bool:
    """A personalisation value made by the clients' prepare_upload."""
    return isinstance(value, dict) and "file" in value


def prepare_files(service: Service, channel: str, notification_id: uuid.UUID, personalisation: dict) -> PreparedFiles:
    """Check and encrypt every prepared file in personalisation; see the module docstring.

    notification_id is part of the hook's contract but unused: the rows take the id from the
    notification handed to save(), which is the one that actually committed."""
    file_keys = [name for name, value in personalisation.items() if is_prepared_file(value)]
    if not file_keys:
        return PreparedFiles(personalisation)
    if channel != "email":
        raise BadRequestError(EMAIL_ONLY)
    read = {name: options.read_options(personalisation[name]) for name in file_keys}
    if not (service.file_download_contact or "").strip():
        raise BadRequestError(NOT_SET_UP.format(admin_url=get_settings().admin_url, service_id=service.id))
    prepared = PreparedFiles(dict(personalisation), service_id=service.id)
    for name in file_keys:
        item = _prepare_one(read[name])
        prepared.pending.append(item)
        prepared.personalisation[name] = download_url(service.id, item.id, item.key)
    return prepared


def download_url(service_id: object, file_id: object, key: bytes) -> str:
    """The link in the email: {document_download_url}/d/<service id>/<file id>?key=<256-bit key, base64url>."""
    return f"{get_settings().document_download_url}/d/{service_id}/{file_id}?key={crypto.key_to_text(key)}"


def _prepare_one(opts: options.FileOptions) -> _Pending:
    data = options.decode(opts)
    _scan(data)
    resolved = filetypes.resolve(data, opts.extension, opts.is_csv)
    file_id, key = uuid.uuid4(), crypto.new_key()
    return _Pending(
        id=file_id, key=key, blob=crypto.encrypt(key, data, file_id.bytes),
        # No name given: a random one, with the extension the content showed.
        filename=opts.filename or f"file-{secrets.token_hex(4)}{resolved.extension}",
        mimetype=resolved.mimetype, size=len(data), confirm_email=opts.confirm_email,
        retention_weeks=opts.retention_weeks,
    )


def _scan(data: bytes) -> None:
    try:
        result = scanner_from_url(get_settings().clamd_url).scan(data)
    except ScannerUnavailable as exc:
        # The caller can retry; a file is never let through because the scanner could not answer.
        log.warning("virus scanner unavailable for a file sent by email: %s", exc)
        raise Unavailable(SCANNER_DOWN) from None
    if not result.clean:
        raise BadRequestError(VIRUS_FOUND)
