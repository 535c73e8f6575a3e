"""Letters through the official Node client (notifications-node-client 8.4), run by `node` on letters.js,
with a real worker rendering and scanning."""
from __future__ import annotations

import base64
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from tests.factories import create_key, create_sample_template, create_service

NODE = shutil.which("node")
SCRIPT = Path(__file__).parent / "node" / "letters.js"

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH")


@pytest.fixture
def service():
    return create_service()


@pytest.fixture
def run(service, live_server):
    key = create_key(service=service)

    def run(operation: str, *args: str) -> tuple[int, dict]:
        done = subprocess.run(
            [NODE, str(SCRIPT), operation, *args], capture_output=True, text=True, timeout=60, check=False,
            env={**os.environ, "NOTIFY_BASE_URL": live_server, "NOTIFY_API_KEY": key},
        )
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        return result["status"], result["data"]

    return run


def test_send_letter_and_read_its_pdf(run, service, worker):
    template = create_sample_template(service=service, template_type="letter", subject="Brief voor ((name))",
                                      body="Hallo ((name)), dit is een brief.")
    address = {"address_line_1": "B. de Vries", "address_line_2": "Kerkstraat 12", "address_line_3": "9711 AA Groningen"}
    status, sent = run("sendLetter", str(template.id), json.dumps({"name": "Bea", **address}), "node-ref")
    assert status == 201
    assert sent["content"] == {"subject": "Brief voor Bea", "body": "Hallo Bea, dit is een brief."}
    assert sent["reference"] == "node-ref"
    status, data = run("getPdfForLetterNotification", sent["id"], "30")
    assert status == 200
    pdf = base64.b64decode(data["pdf"])
    text = " ".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    assert "B. de Vries Kerkstraat 12 9711 AA GRONINGEN" in text and "Hallo Bea, dit is een brief." in text


def test_precompiled_letter_round_trip(run, worker, tmp_path):
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    canvas.drawString(80, 600, "Een brief uit Node")
    canvas.showPage()
    canvas.save()
    path = tmp_path / "letter.pdf"
    path.write_bytes(buffer.getvalue())
    status, sent = run("sendPrecompiledLetter", "node-upload", str(path), "economy")
    assert (status, sent) == (201, {"id": sent["id"], "reference": "node-upload", "postage": "economy"})
    status, data = run("getPdfForLetterNotification", sent["id"], "30")
    assert status == 200 and base64.b64decode(data["pdf"]) == buffer.getvalue()


def test_pdf_errors_reach_node_as_json(run):
    status, data = run("getPdfForLetterNotification", "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11")
    assert (status, data) == (404, {"status_code": 404, "errors": [{"error": "NoResultFound",
                                                                    "message": "No result found"}]})
    status, data = run("sendPrecompiledLetter", "r", __file__)  # not a PDF
    assert (status, data["errors"]) == (400, [{"error": "BadRequestError", "message": "Letter content is not a valid PDF"}])
