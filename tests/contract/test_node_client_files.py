"""Send a file by email through the official Node client (prepareUpload), run by `node` on call.js."""
from __future__ import annotations

import re

import pytest
import requests

from models.document import Document
from tests.contract.node_client import node_call, node_file, requires_node
from tests.factories import create_key, create_sample_template, create_service
from tests.pipeline.test_documents_filetypes import ODT

LINK = re.compile(r"http://127\.0\.0\.1:\d+/d/[0-9a-f-]{36}/[0-9a-f-]{36}\?key=[A-Za-z0-9_-]{43}")

pytestmark = requires_node


@pytest.fixture
def service():
    return create_service(file_download_contact="0201234567")


@pytest.fixture
def run(service, live_server):
    key = create_key(service=service)
    template = create_sample_template(service=service, template_type="email", body="Download: ((link))",
                                      subject="Your file")

    def run(content: bytes, **options) -> tuple[int, dict]:
        """prepareUpload(content, options) as the link of a sendEmail, as a Node user sends a file."""
        _, link = node_call(live_server, key, "prepareUpload", node_file(content), options)
        return node_call(live_server, key, "sendEmail", str(template.id), "anna@example.nl",
                         {"personalisation": {"link": link}})

    return run


def test_prepare_upload_send_and_download(run, live_server):
    status, data = run(ODT, filename="brief.odt", confirmEmailBeforeDownload=False, retentionPeriod="1 week")
    assert status == 201, data
    link = LINK.search(data["content"]["body"]).group(0)
    page = requests.get(link, timeout=10)
    assert page.status_code == 200 and "brief.odt" in page.text and "0201234567" in page.text
    href = re.search(r'<a class="button" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
    file = requests.get(live_server + href, timeout=10)
    assert file.content == ODT and file.headers["Content-Type"] == "application/vnd.oasis.opendocument.text"
    document = Document.get()
    assert document.confirm_email is False and (document.expires_at - document.created_at).days == 7


def test_refusal_as_a_node_user_sees_it(run):
    assert run(ODT, filename="brief.pdf") == (400, {"status_code": 400, "errors": [{
        "error": "BadRequestError", "message": "Unsupported file type '.odt'. Supported types are: '.csv', '.doc', "
        "'.docx', '.jpeg', '.jpg', '.json', '.odt', '.pdf', '.png', '.rtf', '.txt', '.xlsx'"}]})
