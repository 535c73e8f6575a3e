"""The service with a real clamd (CLAMD_URL): files sent by email and precompiled letters, through the
official Python client, and a clamd killed and started again while letters are being scanned."""
from __future__ import annotations

import dataclasses
import io
import threading

import pytest
from notifications_python_client import prepare_upload
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient

import config
from models.document import Document
from models.notification import Notification
from pipeline.infrastructure.storage import LocalStorage, letter_pdf_key
from pipeline.infrastructure.virus_scan import EICAR, ClamdScanner, ScannerUnavailable
from pipeline.stages.letters import stages
from tests.clamd_server import OWN_MARKER, clamd  # noqa: F401
from tests.conftest import status_of, wait_for
from tests.contract.test_python_client_letters import a_pdf
from tests.factories import create_key, create_notification, create_sample_template, create_service
from tests.pipeline.test_documents_filetypes import PDF

VIRUS_FOUND = (400, [{"error": "BadRequestError", "message": "File did not pass the virus scan"}])


@pytest.fixture
def scanning_with_clamd(clamd, monkeypatch):  # noqa: F811
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), clamd_url=clamd.tcp_url))
    return clamd


@pytest.fixture
def service():
    return create_service(file_download_contact="help@example.nl")


@pytest.fixture
def api(live_server, service):
    return NotificationsAPIClient(create_key(service=service), base_url=live_server)


def refusal(call) -> tuple[int, list[dict]]:
    with pytest.raises(HTTPError) as exc:
        call()
    return exc.value.status_code, exc.value.message


def send_file(api, service, data: bytes, filename: str = "notes.txt") -> dict:
    template = create_sample_template(service=service, template_type="email", body="Download: ((link))",
                                      subject="Your file")
    return api.send_email_notification(email_address="anna.jansen@example.nl", template_id=str(template.id),
                                       personalisation={"link": prepare_upload(io.BytesIO(data), filename=filename)})


def test_a_file_sent_by_email_is_scanned_by_clamd(scanning_with_clamd, api, service):
    assert refusal(lambda: send_file(api, service, b"Hello " + EICAR)) == VIRUS_FOUND
    assert refusal(lambda: send_file(api, service, b"Our own signature: " + OWN_MARKER)) == VIRUS_FOUND
    assert Document.select().count() == 0 and Notification.select().count() == 0
    assert "Download: http" in send_file(api, service, PDF, filename="besluit.pdf")["content"]["body"]
    assert Document.select().count() == 1
    # Only clamd knows our own signature: it is what answered.
    assert "Notify-Test-Marker.UNOFFICIAL FOUND" in scanning_with_clamd.log()


def test_a_file_sent_while_clamd_is_down_is_refused_with_503_and_kept_nowhere(scanning_with_clamd, api, service):
    scanning_with_clamd.kill()
    try:
        assert refusal(lambda: send_file(api, service, PDF, filename="besluit.pdf")) == (
            503, [{"error": "BadRequestError", "message": "Antivirus API error"}])
        assert Document.select().count() == 0 and Notification.select().count() == 0
    finally:
        scanning_with_clamd.start()
    send_file(api, service, PDF, filename="besluit.pdf")
    assert Document.select().count() == 1


def test_a_precompiled_letter_is_scanned_by_clamd(scanning_with_clamd, api, worker):
    infected = api.send_precompiled_letter_notification("infected", io.BytesIO(a_pdf(comment=EICAR.decode("ascii"))))
    ours = api.send_precompiled_letter_notification("ours", io.BytesIO(a_pdf(comment=OWN_MARKER.decode("ascii"))))
    clean = api.send_precompiled_letter_notification("clean", io.BytesIO(a_pdf()))
    wait_for(lambda: {status_of(each["id"]) for each in (infected, ours)} == {"virus-scan-failed"})
    wait_for(lambda: status_of(clean["id"]) == "created")
    assert api.get_notification_by_id(infected["id"])["status"] == "virus-scan-failed"
    assert refusal(lambda: api.get_pdf_for_letter(ours["id"])) == VIRUS_FOUND


def test_a_clamd_restart_while_letters_are_scanned_loses_none_and_passes_none_unscanned(
        scanning_with_clamd, service, tmp_path):
    """Scanned as the virus-scan actor does (workers/letters.py): ScannerUnavailable leaves the letter
    pending-virus-check and its message is retried. clamd is killed with letters still to scan and
    started again; in the end every infected letter is virus-scan-failed and every clean one created."""
    storage = LocalStorage(tmp_path / "letters")
    infected_pdf, clean_pdf = a_pdf(comment=EICAR.decode("ascii")), a_pdf()
    letters = {}
    for number in range(24):
        notification = create_notification(service=service, notification_type="letter", status="pending-virus-check",
                                           precompiled=True, template_id=None, template_version=None,
                                           to="Provided as PDF", address=None)
        infected = number % 3 == 0
        storage.put(letter_pdf_key(notification.id), infected_pdf if infected else clean_pdf)
        letters[notification.id] = infected
    scanner = ClamdScanner(scanning_with_clamd.tcp_url, timeout=10)
    queue, outcomes, unavailable = list(letters), {}, []
    halfway, killed, down, up = threading.Event(), threading.Event(), threading.Event(), threading.Event()

    def scan_all() -> None:
        from models.db import database

        with database.connection_context():
            while queue:
                notification_id = queue[0]
                try:
                    outcomes[notification_id] = stages.scan_precompiled(notification_id, storage, scanner)
                    queue.pop(0)
                    if len(outcomes) == 8:
                        halfway.set()
                        killed.wait(30)
                except ScannerUnavailable as error:
                    unavailable.append((notification_id, status_of(notification_id), str(error)))
                    down.set()
                    up.wait(30)  # the actor's retry backoff

    thread = threading.Thread(target=scan_all)
    thread.start()
    try:
        assert halfway.wait(30)
        scanning_with_clamd.kill()
        killed.set()
        assert down.wait(30), "the scans never met the killed clamd"
        assert len(outcomes) == 8
    finally:
        scanning_with_clamd.start()
        up.set()
    thread.join(60)
    assert not thread.is_alive()
    # While clamd was down the letter in hand stayed where it was, to be scanned again.
    assert unavailable and {status for _, status, _ in unavailable} == {"pending-virus-check"}
    assert set(outcomes) == set(letters)
    for notification_id, infected in letters.items():
        expected = "virus-scan-failed" if infected else "created"
        assert (outcomes[notification_id], status_of(notification_id)) == (expected, expected)
        assert storage.exists(f"quarantine/{letter_pdf_key(notification_id)}") is infected
