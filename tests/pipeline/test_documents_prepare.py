"""prepare_files: every refusal text, what is stored (encrypted, keyless) and how the link reads it back."""
from __future__ import annotations

import base64
import datetime
import uuid

import pytest
from playhouse.shortcuts import model_to_dict

from api.errors import ApiError, BadRequestError, answer_of
from config import get_settings
from models.db import database
from models.document import Document
from pipeline.infrastructure.virus_scan import EICAR, ScannerUnavailable
from pipeline.stages.documents import crypto, prepare_files
from pipeline.stages.documents.access import find, read, recipient_matches
from pipeline.stages.documents.cleanup import delete_orphaned_files
from pipeline.stages.documents.storage import keys_older_than, storage
from tests.factories import create_notification, create_service
from tests.pipeline.test_documents_filetypes import CSV, GIF, PDF, PNG, unsupported_message

ADMIN = get_settings().admin_url
RETENTION = "Unsupported value for retention_period '{}'. Supported periods are from 1 to 78 weeks."
CONFIRM = "Unsupported value for confirm_email_before_download: '{}'. Use a boolean true or false value."


@pytest.fixture
def service():
    return create_service(file_download_contact="help@example.nl")


def upload(content: bytes = PDF, **options) -> dict:
    return {"file": base64.b64encode(content).decode(), "filename": None, "confirm_email_before_download": None,
            "retention_period": None, **options}


def refused(service, personalisation: dict, channel: str = "email") -> list[str]:
    with pytest.raises(ApiError) as exc:
        prepare_files(service, channel, uuid.uuid4(), personalisation)
    assert answer_of(exc.value) == (400, "BadRequestError") and isinstance(exc.value, BadRequestError)
    return exc.value.messages


def send(service, personalisation: dict, to: str = "Anna.Jansen@Example.nl"):
    notification_id = uuid.uuid4()
    files = prepare_files(service, "email", notification_id, personalisation)
    with database.atomic():
        notification = create_notification(service=service, notification_type="email", id=notification_id, to=to,
                                           normalised_to=to)
        files.save(notification)
    return files, notification


def stored(service) -> list[str]:
    return [key for key in keys_older_than(storage(), datetime.timedelta(0)) if key.startswith(f"{service.id}/")]


def key_of(url: str) -> str:
    return url.split("?key=", 1)[1]


def test_no_files_is_a_no_op(service):
    personalisation = {"name": "Anna", "nested": {"not": "a file"}}
    files = prepare_files(service, "sms", uuid.uuid4(), personalisation)
    assert files.personalisation == personalisation and files.pending == []
    files.save(None)  # nothing to save, nothing touched


@pytest.mark.parametrize("options, message", [
    ({"filename": "a" * 97 + ".pdf"}, "filename cannot be longer than 100 characters"),
    ({"filename": "report"}, "filename must end with a file extension. For example, filename.csv"),
    ({"filename": "report."}, "filename must end with a file extension. For example, filename.csv"),
    ({"filename": 12}, "filename must end with a file extension. For example, filename.csv"),
    ({"filename": "setup.exe"}, unsupported_message(".exe")),
    ({"retention_period": "0 weeks"}, RETENTION.format("0 weeks")),
    ({"retention_period": "79 weeks"}, RETENTION.format("79 weeks")),
    ({"retention_period": "2 months"}, RETENTION.format("2 months")),
    ({"retention_period": 4}, RETENTION.format("4")),
    ({"confirm_email_before_download": "yes"}, CONFIRM.format("yes")),
    ({"confirm_email_before_download": 1}, CONFIRM.format("1")),
    ({"file": "not base64!"}, "Document is not base64 encoded"),
    ({"file": 1234}, "Document is not base64 encoded"),
])
def test_option_refusals(service, options, message):
    assert refused(service, {"doc": upload(**options)}) == [message]


def test_content_refusals(service):
    assert refused(service, {"doc": upload(b"x" * (2 * 1024 * 1024 + 1))}) == ["File is larger than 2MB"]
    assert refused(service, {"doc": upload(PNG, filename="scan.pdf")}) == [unsupported_message(".png")]
    assert refused(service, {"doc": upload(GIF)}) == [unsupported_message(".gif")]
    assert refused(service, {"doc": upload(EICAR, filename="notes.txt")}) == \
        ["File did not pass the virus scan"]


def test_exactly_2mb_is_accepted_as_the_clients_allow_it(service):
    files = prepare_files(service, "email", uuid.uuid4(), {"doc": upload(b"a" * (2 * 1024 * 1024), filename="a.txt")})
    assert files.pending[0].size == 2 * 1024 * 1024


def test_email_only_and_contact_details(service):
    assert refused(service, {"doc": upload()}, channel="sms") == ["Can only send a file by email"]
    bare = create_service()
    assert refused(bare, {"doc": upload()}) == [
        f"Send files by email has not been set up - add contact details for your service at "
        f"{ADMIN}/services/{bare.id}/service-settings/send-files-by-email"]


def test_nothing_is_stored_until_save(service):
    prepare_files(service, "email", uuid.uuid4(), {"doc": upload()})
    assert Document.select().count() == 0
    assert stored(service) == []


def test_stored_encrypted_without_the_key(service):
    files, notification = send(service, {"doc": upload(CSV, filename="Overzicht 2026.csv",
                                                       retention_period="4 weeks"), "name": "Anna"})
    url = files.personalisation["doc"]
    assert files.personalisation["name"] == "Anna"
    document = Document.get()
    assert url == f"{get_settings().base_url}/d/{service.id}/{document.id}?key={key_of(url)}"
    assert len(key_of(url)) == 43  # 256 bits
    assert (document.notification_id, document.filename, document.mimetype, document.size) == \
        (notification.id, "Overzicht 2026.csv", "text/csv", len(CSV))
    assert document.confirm_email is True  # the default
    assert document.expires_at - document.created_at == datetime.timedelta(weeks=4)
    blob = storage().get(document.storage_key)
    assert CSV not in blob and key_of(url) not in str(model_to_dict(document, recurse=False))
    found = find(str(service.id), str(document.id), key_of(url))
    assert read(found) == CSV


def test_defaults_name_and_retention(service):
    files, _ = send(service, {"doc": upload(PDF, confirm_email_before_download=False)})
    document = Document.get()
    assert document.filename.startswith("file-") and document.filename.endswith(".pdf")
    assert document.confirm_email is False and document.recipient_digest is None
    assert (document.expires_at - document.created_at).days == 26 * 7


def test_recipient_check_ignores_case_and_spaces(service):
    files, _ = send(service, {"doc": upload()})
    document = Document.get()
    found = find(str(service.id), str(document.id), key_of(files.personalisation["doc"]))
    assert recipient_matches(found, "  anna.jansen@EXAMPLE.nl ")
    assert not recipient_matches(found, "anna.jansen@example.com")


def test_wrong_or_malformed_links_find_nothing(service):
    files, _ = send(service, {"doc": upload()})
    document = Document.get()
    right = key_of(files.personalisation["doc"])
    wrong = crypto.key_to_text(crypto.new_key())
    for args in [(str(service.id), str(document.id), wrong), (str(service.id), str(document.id), None),
                 (str(service.id), str(document.id), right[:-1]), (str(uuid.uuid4()), str(document.id), right),
                 ("not-a-uuid", str(document.id), right), (str(service.id), "x", right)]:
        assert find(*args).document is None


def test_every_file_in_personalisation_is_stored_even_unused(service):
    files, _ = send(service, {"one": upload(PDF), "two": upload(PNG, filename="photo.png")})
    assert Document.select().count() == 2
    assert files.personalisation["one"] != files.personalisation["two"]


def test_rolled_back_send_leaves_no_row_and_its_bytes_are_swept(service):
    notification_id = uuid.uuid4()
    files = prepare_files(service, "email", notification_id, {"doc": upload()})
    with pytest.raises(RuntimeError):
        with database.atomic():
            files.save(create_notification(service=service, notification_type="email", id=notification_id))
            raise RuntimeError("enqueue failed")
    assert Document.select().count() == 0
    assert len(stored(service)) == 1
    assert delete_orphaned_files(datetime.timedelta(0)) >= 1
    assert stored(service) == []


def test_failed_save_removes_what_it_wrote(service, monkeypatch):
    files = prepare_files(service, "email", uuid.uuid4(), {"doc": upload()})

    def broken(**fields):
        raise RuntimeError("database went away")

    monkeypatch.setattr(Document, "create", broken)
    with pytest.raises(RuntimeError):
        files.save(create_notification(service=service, notification_type="email"))
    assert stored(service) == []


def test_scanner_down_is_a_503_not_a_pass(service, monkeypatch):
    class Down:
        def scan(self, data: bytes):
            raise ScannerUnavailable("clamd at tcp://127.0.0.1:1: refused")

    monkeypatch.setattr("pipeline.stages.documents.prepare.scanner_from_url", lambda url: Down())
    with pytest.raises(ApiError) as exc:
        prepare_files(service, "email", uuid.uuid4(), {"doc": upload()})
    assert (answer_of(exc.value)[0], exc.value.messages) == (503, ["Antivirus API error"])


def test_links_point_at_the_download_host(service, client, monkeypatch):
    import dataclasses

    import config

    monkeypatch.delenv("DOCUMENT_DOWNLOAD_URL", raising=False)
    assert config.load_settings().document_download_url == config.load_settings().base_url
    monkeypatch.setenv("DOCUMENT_DOWNLOAD_URL", "https://documents.example.nl/")
    assert config.load_settings().document_download_url == "https://documents.example.nl"
    monkeypatch.setattr(config, "_settings", dataclasses.replace(
        get_settings(), document_download_url="https://documents.example.nl"))
    files, _ = send(service, {"doc": upload()})
    url = files.personalisation["doc"]
    assert url.startswith(f"https://documents.example.nl/d/{service.id}/")
    # The host of its own is pointed at the same web process, which serves the page at that path.
    assert client.get(url.removeprefix("https://documents.example.nl")).status_code == 200
