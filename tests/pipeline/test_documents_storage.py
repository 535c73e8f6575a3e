"""Encryption, the local-disk storage and the cleanup job of files sent by email."""
from __future__ import annotations

import datetime
import uuid

import pytest

from config import get_settings
from models.db import utcnow
from models.document import Document
from pipeline.stages.documents import crypto
from pipeline.stages.documents.cleanup import delete_expired_files
from pipeline.stages.documents.storage import keys_older_than, storage
from tests.factories import create_service
from tests.pipeline.test_documents_prepare import send, upload
from workers.periodic import SCHEDULE


def test_encryption_round_trip_and_failures():
    key, file_id = crypto.new_key(), uuid.uuid4().bytes
    blob = crypto.encrypt(key, b"contents", file_id)
    assert b"contents" not in blob
    assert crypto.decrypt(key, blob, file_id) == b"contents"
    with pytest.raises(crypto.DecryptionFailed):
        crypto.decrypt(crypto.new_key(), blob, file_id)
    with pytest.raises(crypto.DecryptionFailed):
        crypto.decrypt(key, blob, uuid.uuid4().bytes)  # the blob belongs to another file id
    with pytest.raises(crypto.DecryptionFailed):
        crypto.decrypt(key, blob[:-1] + bytes([blob[-1] ^ 1]), file_id)
    assert crypto.encrypt(key, b"contents", file_id) != blob  # a fresh nonce every time


def test_key_text():
    key = crypto.new_key()
    text = crypto.key_to_text(key)
    assert len(text) == 43 and "=" not in text
    assert crypto.key_from_text(text) == key
    for bad in (None, "", text[:-1], text + "A", text[:-1] + "!", "x" * 43 + "\n"):
        assert crypto.key_from_text(bad) is None


def test_stored_under_the_configured_directory_and_listed_by_age():
    store = storage()
    assert store.root == get_settings().file_storage_dir
    key = f"{uuid.uuid4()}/{uuid.uuid4()}"
    store.put(key, b"sealed")
    assert (get_settings().file_storage_dir / key).read_bytes() == b"sealed"
    assert key in list(keys_older_than(store, datetime.timedelta(0)))
    assert key not in list(keys_older_than(store, datetime.timedelta(hours=1)))
    store.delete(key)


def test_cleanup_deletes_expired_files_and_rows_only():
    service = create_service(file_download_contact="help@example.nl")
    send(service, {"old": upload(), "new": upload()})
    old, new = Document.select().order_by(Document.id)
    Document.update(expires_at=utcnow() - datetime.timedelta(seconds=1)).where(Document.id == old.id).execute()
    assert delete_expired_files() == 1
    assert [d.id for d in Document.select()] == [new.id]
    assert not storage().exists(old.storage_key)
    assert storage().exists(new.storage_key)


def test_cleanup_runs_on_the_schedule():
    names = {name: actor for name, _, actor in SCHEDULE}
    assert names["delete-expired-files"].queue_name == "periodic"
