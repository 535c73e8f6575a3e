"""Send a file by email through the official Python client (prepare_upload), then fetch it as the
recipient would, with `requests` against the live server."""
from __future__ import annotations

import base64
import io
import re

import pytest
import requests
from notifications_python_client import prepare_upload
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient

from config import get_settings
from models.document import Document
from models.notification import Notification
from pipeline.infrastructure.virus_scan import EICAR
from pipeline.stages.documents.filetypes import ALLOWED_LIST
from tests.factories import create_key, create_sample_template, create_service
from tests.pipeline.test_documents_filetypes import DOCX, PDF, PNG

RECIPIENT = "anna.jansen@example.nl"
LINK = re.compile(r"http://127\.0\.0\.1:\d+/d/[0-9a-f-]{36}/[0-9a-f-]{36}\?key=[A-Za-z0-9_-]{43}")


@pytest.fixture
def service():
    return create_service(name="Gemeente Voorbeeld", file_download_contact="https://voorbeeld.nl/contact")


@pytest.fixture
def template(service):
    return create_sample_template(service=service, template_type="email", body="Download: ((link))",
                                  subject="Your file")


@pytest.fixture
def api(live_server, service):
    return NotificationsAPIClient(create_key(service=service), base_url=live_server)


def send(api, template, upload, to: str = RECIPIENT) -> dict:
    return api.send_email_notification(email_address=to, template_id=str(template.id), personalisation={"link": upload})


def refusal(call) -> tuple[int, list[dict]]:
    with pytest.raises(HTTPError) as exc:
        call()
    return exc.value.status_code, exc.value.message


def download_href(html: str) -> str:
    return re.search(r'<a class="button" href="([^"]+)"', html).group(1).replace("&amp;", "&")


def test_confirmed_download_through_the_python_client(api, template, live_server):
    response = send(api, template, prepare_upload(io.BytesIO(DOCX), filename="Besluit 2026.docx",
                                                  confirm_email_before_download=True, retention_period="4 weeks"))
    link = LINK.search(response["content"]["body"]).group(0)
    assert response["content"]["body"] == f"Download: {link}"
    assert Notification.get_by_id(response["id"]).body == f"Download: {link}"
    page = requests.get(link, timeout=10)
    assert page.status_code == 200 and "Besluit 2026.docx" in page.text
    assert '<a href="https://voorbeeld.nl/contact" rel="noreferrer noopener">' in page.text
    wrong = requests.post(link, data={"email_address": "iemand@example.nl"}, timeout=10)
    assert wrong.status_code == 400 and "Dit is niet het e-mailadres waarnaar het bestand is gestuurd" in wrong.text
    right = requests.post(link, data={"email_address": "Anna.Jansen@Example.NL"}, timeout=10)
    assert right.status_code == 200
    file = requests.get(live_server + download_href(right.text), timeout=10)
    assert file.status_code == 200 and file.content == DOCX
    assert file.headers["Content-Type"] == \
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    assert file.headers["Content-Disposition"] == 'attachment; filename="Besluit 2026.docx"'
    document = Document.get()
    assert (document.expires_at - document.created_at).days == 28


def test_defaults_without_confirmation(api, template, live_server):
    response = send(api, template, prepare_upload(io.BytesIO(PDF), confirm_email_before_download=False))
    link = LINK.search(response["content"]["body"]).group(0)
    page = requests.get(link, timeout=10)
    assert "<form" not in page.text
    file = requests.get(live_server + download_href(page.text), timeout=10)
    assert file.content == PDF and file.headers["Content-Type"] == "application/pdf"
    assert re.fullmatch(r"attachment; filename=file-[0-9a-f]{8}\.pdf", file.headers["Content-Disposition"])


def test_test_keys_validate_the_same_and_give_a_working_link(live_server, service, template):
    api = NotificationsAPIClient(create_key(service=service, key_type="test"), base_url=live_server)
    assert refusal(lambda: send(api, template, prepare_upload(io.BytesIO(EICAR), filename="a.txt"))) == \
        (400, [{"error": "BadRequestError", "message": "File did not pass the virus scan"}])
    response = send(api, template, prepare_upload(io.BytesIO(PNG), filename="scan.png",
                                                  confirm_email_before_download=False))
    page = requests.get(LINK.search(response["content"]["body"]).group(0), timeout=10)
    assert requests.get(live_server + download_href(page.text), timeout=10).content == PNG


def _unsupported(file_type: str) -> str:
    return f"Unsupported file type '{file_type}'. Supported types are: {ALLOWED_LIST}"


@pytest.mark.parametrize("upload, message", [
    (lambda: prepare_upload(io.BytesIO(PDF), filename="a" * 101 + ".pdf"),
     "filename cannot be longer than 100 characters"),
    (lambda: prepare_upload(io.BytesIO(PDF), filename="besluit"),
     "filename must end with a file extension. For example, filename.csv"),
    (lambda: prepare_upload(io.BytesIO(PDF), filename="besluit.exe"), _unsupported(".exe")),
    (lambda: prepare_upload(io.BytesIO(PNG), filename="besluit.pdf"), _unsupported(".png")),
    (lambda: prepare_upload(io.BytesIO(b"GIF89a" + bytes(300))), _unsupported(".gif")),
    (lambda: prepare_upload(io.BytesIO(PDF), retention_period="79 weeks"),
     "Unsupported value for retention_period '79 weeks'. Supported periods are from 1 to 78 weeks."),
    (lambda: prepare_upload(io.BytesIO(PDF), retention_period="six months"),
     "Unsupported value for retention_period 'six months'. Supported periods are from 1 to 78 weeks."),
    (lambda: prepare_upload(io.BytesIO(PDF), confirm_email_before_download="yes"),
     "Unsupported value for confirm_email_before_download: 'yes'. Use a boolean true or false value."),
    (lambda: prepare_upload(io.BytesIO(b"Hello " + EICAR), filename="eicar.txt"), "File did not pass the virus scan"),
    # Past the client's own 2MB check (a hand-made object), and not base64 at all:
    (lambda: {"file": base64.b64encode(bytes(2 * 1024 * 1024 + 1)).decode(), "filename": "big.pdf"},
     "File is larger than 2MB"),
    (lambda: {"file": "%%% not base64 %%%"}, "Document is not base64 encoded"),
])
def test_every_refusal_through_the_client(api, template, upload, message):
    assert refusal(lambda: send(api, template, upload())) == (400, [{"error": "BadRequestError", "message": message}])
    assert Document.select().count() == 0 and Notification.select().count() == 0


def test_client_refuses_more_than_2mb_itself():
    with pytest.raises(ValueError, match="File is larger than 2MB"):
        prepare_upload(io.BytesIO(bytes(2 * 1024 * 1024 + 1)))


def test_contact_details_must_be_set(live_server):
    bare = create_service()
    template = create_sample_template(service=bare, template_type="email", body="Download: ((link))",
                                      subject="Your file")
    api = NotificationsAPIClient(create_key(service=bare), base_url=live_server)
    assert refusal(lambda: send(api, template, prepare_upload(io.BytesIO(PDF)))) == (400, [{
        "error": "BadRequestError",
        "message": f"Send files by email has not been set up - add contact details for your service at "
                   f"{get_settings().admin_url}/services/{bare.id}/service-settings/send-files-by-email"}])


def test_files_only_by_email(api, service):
    template = create_sample_template(service=service, template_type="sms", body="Download: ((link))")
    assert refusal(lambda: api.send_sms_notification(
        phone_number="0612345678", template_id=str(template.id),
        personalisation={"link": prepare_upload(io.BytesIO(PDF))})) == \
        (400, [{"error": "BadRequestError", "message": "Can only send a file by email"}])


def test_unused_placeholder_file_is_still_checked_and_stored(api, template):
    personalisation = {"link": "https://example.nl", "extra": prepare_upload(io.BytesIO(PDF))}
    api.send_email_notification(email_address=RECIPIENT, template_id=str(template.id), personalisation=personalisation)
    assert Document.select().count() == 1
    personalisation["extra"] = prepare_upload(io.BytesIO(PDF), retention_period="0 weeks")
    assert refusal(lambda: api.send_email_notification(
        email_address=RECIPIENT, template_id=str(template.id), personalisation=personalisation))[0] == 400
