"""Letters through the official Node client (notifications-node-client 8.4), run by `node` on call.js,
with a real worker rendering and scanning."""
from __future__ import annotations

import base64
import functools
import io
from pathlib import Path

import pytest
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from tests.conftest import wait_for
from tests.contract.node_client import node_call, node_file, requires_node
from tests.factories import create_key, create_sample_template

pytestmark = requires_node


@pytest.fixture
def run(service, live_server):
    return functools.partial(node_call, live_server, create_key(service=service))


def get_pdf(run, notification_id: str, wait: float = 30) -> tuple[int, dict]:
    """getPdfForLetterNotification, asked again while the answer is PDFNotReadyError (for up to `wait` seconds)."""
    def ready():
        status, data = run("getPdfForLetterNotification", notification_id)
        not_ready = any(e["error"] == "PDFNotReadyError" for e in data.get("errors", []))
        return None if not_ready else (status, data)

    return wait_for(ready, timeout=wait, interval=0.2)


def test_send_letter_and_read_its_pdf(run, service, worker):
    template = create_sample_template(service=service, template_type="letter", subject="Brief voor ((name))",
                                      body="Hallo ((name)), dit is een brief.")
    address = {"address_line_1": "B. de Vries", "address_line_2": "Kerkstraat 12",
               "address_line_3": "9711 AA Groningen"}
    status, sent = run("sendLetter", str(template.id), {"personalisation": {"name": "Bea", **address},
                                                        "reference": "node-ref"})
    assert status == 201
    assert sent["content"] == {"subject": "Brief voor Bea", "body": "Hallo Bea, dit is een brief."}
    assert sent["reference"] == "node-ref"
    status, data = get_pdf(run, sent["id"])
    assert status == 200
    pdf = base64.b64decode(data["base64"])
    text = " ".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    assert "B. de Vries Kerkstraat 12 9711 AA GRONINGEN" in text and "Hallo Bea, dit is een brief." in text


def test_precompiled_letter_round_trip(run, worker):
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    canvas.drawString(80, 600, "Een brief uit Node")
    canvas.showPage()
    canvas.save()
    status, sent = run("sendPrecompiledLetter", "node-upload", node_file(buffer.getvalue()), "economy")
    assert (status, sent) == (201, {"id": sent["id"], "reference": "node-upload", "postage": "economy"})
    status, data = get_pdf(run, sent["id"])
    assert status == 200 and base64.b64decode(data["base64"]) == buffer.getvalue()


def test_pdf_errors_reach_node_as_json(run):
    status, data = run("getPdfForLetterNotification", "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11")
    assert (status, data) == (404, {"status_code": 404, "errors": [{"error": "NoResultFound",
                                                                    "message": "No result found"}]})
    status, data = run("sendPrecompiledLetter", "r", node_file(Path(__file__).read_bytes()))  # not a PDF
    assert (status, data["errors"]) == (400, [{"error": "BadRequestError",
                                               "message": "Letter content is not a valid PDF"}])
