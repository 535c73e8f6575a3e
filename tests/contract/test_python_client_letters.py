"""Letters through the official Python client, carried by a real worker on real Redis: sends, refusals,
the PDF read back, the virus scan, and the print provider's batches and answers."""
from __future__ import annotations

import io

import jsonschema
import pytest
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from api.v2.notifications.letter_schemas import post_letter_response, post_precompiled_letter_response
from models.notification import Notification
from pipeline.infrastructure.virus_scan import EICAR
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_sample_template, create_service
from workers.letters import print_letters

ADDRESS = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234 AB  Amsterdam"}
NOT_READY = (400, [{"error": "PDFNotReadyError", "message": "PDF not available yet, try again later"}])


def a_pdf(text: str = "Hello", *, comment: str | None = None) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    if comment is not None:
        canvas.addLiteral("% " + comment)
    canvas.drawString(25 * mm, A4[1] - 60 * mm, text)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


@pytest.fixture
def template(service):
    return create_sample_template(service=service, template_type="letter", subject="Uw aanvraag ((ref))",
                                  body="Beste ((name)),\n\nWe hebben uw **aanvraag** ontvangen.", postage="first")


def api_for(service, live_server, key_type="live") -> NotificationsAPIClient:
    return NotificationsAPIClient(create_key(service=service, key_type=key_type, name=key_type), base_url=live_server)


@pytest.fixture
def api(service, live_server):
    return api_for(service, live_server)


def refusal(call) -> tuple[int, list[dict]]:
    with pytest.raises(HTTPError) as caught:
        call()
    return caught.value.status_code, caught.value.message


def pdf_when_ready(api, notification_id) -> bytes:
    def attempt():
        try:
            return api.get_pdf_for_letter(notification_id).read()
        except HTTPError as error:
            assert (error.status_code, error.message) == NOT_READY
            return None
    return wait_for(attempt, timeout=30)


def text_of(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).split())


def test_letters_refused_in_trial_mode_and_with_team_keys(live_server, worker):
    service = create_service(trial_mode=True)
    template = create_sample_template(service=service, template_type="letter", body="Hallo")
    live, team = api_for(service, live_server), api_for(service, live_server, "team")
    trial = (400, [{"error": "BadRequestError", "message":
                    "Cannot send letters when service is in trial mode - see https://admin.example.nl/trial-mode"}])
    team_refusal = (403, [{"error": "BadRequestError", "message": "Cannot send letters with a team api key"}])
    assert refusal(lambda: live.send_letter_notification(str(template.id), ADDRESS)) == trial
    assert refusal(lambda: live.send_precompiled_letter_notification("r", io.BytesIO(a_pdf()))) == trial
    assert refusal(lambda: team.send_letter_notification(str(template.id), ADDRESS)) == team_refusal
    assert refusal(lambda: team.send_precompiled_letter_notification("r", io.BytesIO(a_pdf()))) == team_refusal


@pytest.mark.parametrize("address, message", [
    ({"address_line_1": "A. Jansen", "address_line_2": "Straat 1"},
     "personalisation address_line_3 is a required property"),
    ({**ADDRESS, "address_line_3": ""}, "Address must be at least 3 lines"),
    ({**ADDRESS, **{f"address_line_{n}": "x" for n in range(4, 8)}, "postcode": "1234 AB"},
     "Address must be no more than 7 lines"),
    ({**ADDRESS, "address_line_2": "(Straat 1)"},
     "Address lines must not start with any of the following characters: @ ( ) = [ ] \u201d \\ / , < >"),
    ({**ADDRESS, "address_line_3": "1234 SS Ergens"}, "Must be a real NL postcode"),
    ({**ADDRESS, "address_line_3": "Ergens"}, "Last line of address must be a real NL postcode or another country"),
    ({**ADDRESS, "address_line_3": "BFPO 801", "address_line_4": "Verenigd Koninkrijk"},
     "The last line of a BFPO address must not be a country."),
    ({**ADDRESS, "address_line_2": "NFA"}, "Must be a real address"),
])
def test_every_address_error(api, template, address, message):
    personalisation = {"name": "a", "ref": "b", **address}
    status, errors = refusal(lambda: api.send_letter_notification(str(template.id), personalisation))
    assert status == 400 and {e["error"] for e in errors} == {"ValidationError"}
    assert errors[0]["message"] == message  # and, for a missing line, what follows from it


@pytest.mark.parametrize("last_lines, postage", [
    (["1234 AB  Amsterdam"], "first"),  # Dutch: the template's postage
    (["75001 Paris", "Frankrijk"], "europe"),
    (["Ottawa ON K1A 0B1", "Canada"], "rest-of-world"),
])
def test_postage_for_dutch_european_and_other_addresses(api, template, last_lines, postage):
    lines = {f"address_line_{n}": line for n, line in enumerate(["A. Jansen", "Straat 1", *last_lines], start=1)}
    sent = api.send_letter_notification(str(template.id), {"name": "a", "ref": "b", **lines})
    notification = api.get_notification_by_id(sent["id"])
    assert (notification["postage"], notification["type"], notification["status"]) == (postage, "letter", "accepted")
    assert notification["line_1"] == "A. Jansen"


def test_templated_letter_pdf_has_the_text_and_address(api, template, worker):
    sent = api.send_letter_notification(str(template.id), {"name": "Anna", "ref": "R-7", **ADDRESS}, reference="ref-1")
    jsonschema.validate(sent, post_letter_response)
    assert sent["content"] == {"subject": "Uw aanvraag R-7",
                               "body": "Beste Anna,\n\nWe hebben uw **aanvraag** ontvangen."}
    text = text_of(pdf_when_ready(api, sent["id"]))
    for expected in ("A. Jansen Dorpsstraat 1 1234 AB AMSTERDAM", "Uw aanvraag R-7", "Beste Anna,",
                     "We hebben uw aanvraag ontvangen.", "Pagina 1 van 1"):
        assert expected in text
    notification = api.get_notification_by_id(sent["id"])
    assert notification["is_cost_data_ready"] is True
    assert notification["cost_details"] == {"billable_sheets_of_paper": 1, "postage": "first"}


@pytest.mark.parametrize("postage", [None, "first", "economy"])
def test_precompiled_letter_returned_byte_for_byte(api, worker, postage):
    pdf = a_pdf("Een brief")
    sent = api.send_precompiled_letter_notification("my-upload", io.BytesIO(pdf), postage=postage)
    jsonschema.validate(sent, post_precompiled_letter_response)
    assert sent == {"id": sent["id"], "reference": "my-upload", "postage": postage or "second"}
    assert pdf_when_ready(api, sent["id"]) == pdf
    notification = api.get_notification_by_id(sent["id"])
    assert (notification["status"], notification["postage"], notification["line_1"]) == (
        "accepted", postage or "second", "Provided as PDF")


def test_non_pdf_and_bad_postage_refused(api):
    assert refusal(lambda: api.send_precompiled_letter_notification("r", io.BytesIO(b"plain text"))) == (
        400, [{"error": "BadRequestError", "message": "Letter content is not a valid PDF"}])
    assert refusal(lambda: api.send_precompiled_letter_notification("r", io.BytesIO(a_pdf()), postage="europe"))[1] == [
        {"error": "ValidationError", "message": "postage invalid. It must be either first, second or economy."}]


def test_eicar_pdf_ends_virus_scan_failed(api, worker):
    sent = api.send_precompiled_letter_notification("infected", io.BytesIO(a_pdf(comment=EICAR.decode("ascii"))))
    wait_for(lambda: status_of(sent["id"]) == "virus-scan-failed")
    assert api.get_notification_by_id(sent["id"])["status"] == "virus-scan-failed"
    assert refusal(lambda: api.get_pdf_for_letter(sent["id"])) == (
        400, [{"error": "BadRequestError", "message": "File did not pass the virus scan"}])


def test_pdf_route_errors(api, service, live_server):
    sms = create_sample_template(service=service, body="hi")
    text = api.send_sms_notification("0612345678", str(sms.id))
    assert refusal(lambda: api.get_pdf_for_letter(text["id"])) == (
        400, [{"error": "BadRequestError", "message": "Notification is not a letter"}])
    assert refusal(lambda: api.get_pdf_for_letter("nope")) == (
        400, [{"error": "ValidationError", "message": "id is not a valid UUID"}])
    assert refusal(lambda: api.get_pdf_for_letter("6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11")) == (
        404, [{"error": "NoResultFound", "message": "No result found"}])
    pending = api.send_precompiled_letter_notification("r", io.BytesIO(a_pdf()))  # no worker: never scanned
    assert refusal(lambda: api.get_pdf_for_letter(pending["id"])) == NOT_READY
    Notification.update(status="technical-failure").where(Notification.id == pending["id"]).execute()
    assert refusal(lambda: api.get_pdf_for_letter(pending["id"])) == (
        400, [{"error": "BadRequestError", "message": "PDF not available for letters in technical-failure"}])


def test_print_batch_sending_then_received_or_refused(service, template, live_server, worker):
    live, test = api_for(service, live_server), api_for(service, live_server, "test")
    ok = live.send_letter_notification(str(template.id), {"name": "a", "ref": "b", **ADDRESS})
    refused = live.send_letter_notification(str(template.id), {"name": "a", "ref": "b", **ADDRESS,
                                                               "address_line_1": "Perm-fail Jansen"})
    uploaded = live.send_precompiled_letter_notification("upload", io.BytesIO(a_pdf("Een brief")))
    by_test_key = test.send_letter_notification(str(template.id), {"name": "a", "ref": "b", **ADDRESS})
    ids = [n["id"] for n in (ok, refused, uploaded, by_test_key)]
    wait_for(lambda: all(Notification.get_by_id(i).billable_units for i in ids), timeout=30)
    print_letters.send()
    wait_for(lambda: status_of(ok["id"]) == "delivered", timeout=30)
    assert [live.get_notification_by_id(i)["status"] for i in ids] == [
        "received", "permanent-failure", "received", "received"]
    for i in ids:
        stored = Notification.get_by_id(i)
        assert stored.sent_by == "simulated" and stored.sent_at is not None and stored.completed_at is not None
