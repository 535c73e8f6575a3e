"""POST /v2/notifications/letter with a precompiled PDF (`reference` + base64 `content`)."""
from __future__ import annotations

import base64
import io

import jsonschema
import pytest
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from api.v2.notifications.letter_schemas import post_precompiled_letter_response
from models.notification import Notification
from pipeline.infrastructure.storage import letter_pdf_key, letter_storage
from tests.factories import auth_headers, create_key, create_sample_template, create_service
from tests.responses import errors

INVALID_POSTAGE = "postage invalid. It must be either first, second or economy."
NOT_A_PDF = "Letter content is not a valid PDF"


def a_pdf(text: str = "Hello") -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    canvas.drawString(25 * mm, A4[1] - 60 * mm, text)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


PDF = a_pdf()
CONTENT = base64.b64encode(PDF).decode()


def post(client, key, body):
    return client.post("/v2/notifications/letter", json=body, headers=auth_headers(key))


@pytest.mark.parametrize("postage", [None, "first", "second", "economy"])
def test_accepted(client, key, postage):
    body = {"reference": "my-letter", "content": CONTENT, **({"postage": postage} if postage else {})}
    response = post(client, key, body)
    assert response.status_code == 201
    answer = response.get_json()
    jsonschema.validate(answer, post_precompiled_letter_response)
    assert answer == {"id": answer["id"], "reference": "my-letter", "postage": postage or "second"}
    stored = Notification.get_by_id(answer["id"])
    assert stored.status == "pending-virus-check" and stored.precompiled and stored.template_id is None
    assert (stored.postage, stored.billable_units, stored.to) == (postage or "second", None, "Provided as PDF")
    assert letter_storage().get(letter_pdf_key(answer["id"])) == PDF  # kept byte for byte


def test_base64_with_line_breaks_and_null_postage(client, key):
    wrapped = "\n".join(CONTENT[i:i + 76] for i in range(0, len(CONTENT), 76))
    response = post(client, key, {"reference": "r", "content": wrapped, "postage": None})
    assert response.status_code == 201 and response.get_json()["postage"] == "second"


@pytest.mark.parametrize("postage", ["europe", "rest-of-world", "FIRST", "third", ""])
def test_invalid_postage(client, key, postage):
    assert errors(post(client, key, {"reference": "r", "content": CONTENT, "postage": postage})) == (
        400, [("ValidationError", INVALID_POSTAGE)])


def test_schema_errors(client, key):
    assert errors(post(client, key, {"content": CONTENT})) == (400, [("ValidationError",
                                                                     "reference is a required property")])
    assert errors(post(client, key, {"reference": "r", "content": CONTENT, "postage": 2, "foo": 1})) == (400, [
        ("ValidationError", "Additional properties are not allowed (foo was unexpected)"),
        ("ValidationError", "postage 2 is not of type string"),
    ])


@pytest.mark.parametrize("content", [
    "not base64!",
    base64.b64encode(b"just some text, not a PDF").decode(),
    base64.b64encode(b"%PDF-1.4\nbroken").decode(),
    "",
    "ëë",
])
def test_not_a_pdf(client, key, content):
    assert errors(post(client, key, {"reference": "r", "content": content})) == (400, [("BadRequestError", NOT_A_PDF)])
    assert Notification.select().count() == 0


def test_permission_team_key_and_trial_mode(client):
    service = create_service(permissions=["email"])
    assert errors(post(client, create_key(service=service), {"reference": "r", "content": CONTENT})) == (
        400, [("BadRequestError", "Service is not allowed to send letters")])
    service = create_service(trial_mode=True)
    live, team, test = (create_key(service=service, key_type=t, name=t) for t in ("live", "team", "test"))
    body = {"reference": "r", "content": CONTENT}
    assert errors(post(client, live, body)) == (400, [(
        "BadRequestError", "Cannot send letters when service is in trial mode - see https://admin.example.nl/trial-mode")])
    assert errors(post(client, team, body)) == (403, [("BadRequestError", "Cannot send letters with a team api key")])
    assert post(client, test, body).status_code == 201


def test_template_id_means_a_template_letter(client, key, service):
    # Both: the template schema applies, so `content` is an unexpected property.
    template = create_sample_template(service=service, template_type="letter", body="hi")
    response = post(client, key, {"template_id": str(template.id), "content": CONTENT, "reference": "r"})
    assert sorted(errors(response)[1]) == [
        ("ValidationError", "Additional properties are not allowed (content was unexpected)"),
        ("ValidationError", "personalisation is a required property"),
    ]
