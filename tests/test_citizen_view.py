"""What recipients of a service get, end to end: its language, bilingual letters and its brands."""
from __future__ import annotations

import io

import jsonschema
import pytest
from notifications_python_client.errors import HTTPError
from pypdf import PdfReader

from api.v2.template.template_schemas import preview_response, template_response
from models.appearance import EmailBrand, LetterBrand, ServiceAppearance
from pipeline.domain.branding.logos import process_logo
from pipeline.domain.letters import geometry as g
from pipeline.domain.letters.precompiled import validate_precompiled
from tests.api.test_download_page import link
from tests.conftest import status_of, wait_for
from tests.contract.test_python_client_letters import ADDRESS, api_for, pdf_when_ready
from tests.factories import create_sample_template, create_service
from tests.pdf_layout import WINDOW, image_boxes, overlaps, text_boxes
from tests.pipeline.test_logos import SVG, png

BILINGUAL = dict(
    template_type="letter", subject="Uw aanvraag ((nummer))", body="Beste ((naam)),\n\nUw aanvraag is toegekend.",
    letter_languages="dutch_then_english", letter_english_subject="Your application ((nummer))",
    letter_english_body="Dear ((naam)),\n\nYour application has been granted.\n\n((english note))",
)


def brand_letters(service) -> None:
    logo = process_logo(SVG)
    brand = LetterBrand.create(name="Gemeente Voorbeeld", logo_png=logo.png, logo_width=logo.width,
                               logo_height=logo.height)
    ServiceAppearance.create(service=service, letter_brand=brand)


def test_bilingual_letter_prints_dutch_then_english_with_logo_and_references(service, live_server, worker):
    brand_letters(service)
    template = create_sample_template(service=service, **BILINGUAL)
    api = api_for(service, live_server)
    values = {"naam": "Jan", "nummer": "A-7", "english note": "Thank you.", "uw kenmerk": "BZ/2026/11", **ADDRESS}
    missing = {k: v for k, v in values.items() if k != "english note"}
    with pytest.raises(HTTPError) as refused:
        api.send_letter_notification(str(template.id), missing)
    assert refused.value.message == [{"error": "BadRequestError", "message": "Missing personalisation: english note"}]

    sent = api.send_letter_notification(str(template.id), values, reference="VG-0042")
    # Reads and previews answer as Notify's do for bilingual letters: the template's own (first) version.
    assert sent["content"] == {"subject": "Uw aanvraag A-7", "body": "Beste Jan,\n\nUw aanvraag is toegekend."}
    read = api.get_template(str(template.id))
    jsonschema.validate(read, template_response)  # no fields beyond Notify's
    assert (read["subject"], read["body"]) == ("Uw aanvraag ((nummer))", "Beste ((naam)),\n\nUw aanvraag is toegekend.")
    assert set(read["personalisation"]) == {"nummer", "naam", "english note"}
    preview = api.post_template_preview(str(template.id), values)
    jsonschema.validate(preview, preview_response)
    assert (preview["subject"], preview["body"]) == ("Uw aanvraag A-7", "Beste Jan,\n\nUw aanvraag is toegekend.")

    pdf = pdf_when_ready(api, sent["id"])
    dutch, english = [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]
    for expected in ("Ons kenmerk", "VG-0042", "Uw kenmerk", "BZ/2026/11", "Datum", "Onderwerp", "Uw aanvraag A-7",
                     "Beste Jan,", "Pagina 1 van 2", "A. Jansen"):
        assert expected in dutch
    for expected in ("Our reference", "VG-0042", "Your reference", "Subject", "Your application A-7", "Dear Jan,",
                     "Thank you.", "Page 2 of 2"):
        assert expected in english
    assert "A. Jansen" not in english and "Dear Jan" not in dutch
    check = validate_precompiled(pdf)  # our own print checks, as for uploaded letters
    assert check.ok, check.problems
    [logo] = image_boxes(pdf)
    assert not overlaps(logo, *WINDOW)
    assert logo[0] >= g.PRINTABLE_MARGIN and logo[1] >= g.PRINTABLE_MARGIN
    assert (round(logo[0], 1), round(logo[1], 1)) == (g.LOGO_LEFT, g.LOGO_TOP)  # top left
    x, y = text_boxes(pdf)["A. Jansen"]
    assert g.WINDOW_LEFT < x and g.WINDOW_TOP < y < g.WINDOW_TOP + g.WINDOW_HEIGHT
    assert image_boxes(pdf, 1) == []  # the logo is on the first page only
    notification = api.get_notification_by_id(sent["id"])
    assert notification["subject"] == "Uw aanvraag A-7" and notification["body"].startswith("Beste Jan,")


def test_english_service_sends_a_branded_english_email(service, live_server, worker, real_providers):
    smtp, _ = real_providers
    logo = process_logo(png(240, 80))
    brand = EmailBrand.create(name="Gemeente Voorbeeld", colour="#154273", brand_type="both", logo_png=logo.png,
                              logo_width=logo.width, logo_height=logo.height)
    ServiceAppearance.create(service=service, language="en", email_brand=brand)
    template = create_sample_template(service=service, template_type="email", subject="About ((topic))",
                                      body="Dear ((name)),\n\nYour permit is ready.")
    api = api_for(service, live_server)
    sent = api.send_email_notification("burger@example.nl", str(template.id), {"name": "Jan", "topic": "parking"})
    [received] = smtp.wait_for_messages(1)
    html = received.message.get_body(("html",)).get_content()
    assert '<html lang="en">' in html and "Dear Jan," in html
    assert f'/branding/email/{brand.id}/{brand.logo_digest}.png"' in html and 'alt="Gemeente Voorbeeld"' in html
    assert "background-color: #154273" in html and "color: #ffffff;\">" + service.name in html  # beside the name
    assert f"This email was sent by {service.name}." in html
    wait_for(lambda: status_of(sent["id"]) == "delivered")


def test_download_page_speaks_the_service_language(client):
    service = create_service(name="Gemeente Voorbeeld", file_download_contact="help@voorbeeld.nl")
    url = link(service, confirm_email_before_download=False)
    dutch = client.get(url).get_data(as_text=True)
    assert '<html lang="nl">' in dutch and "U heeft een bestand om te downloaden" in dutch
    ServiceAppearance.create(service=service, language="en")
    english = client.get(url).get_data(as_text=True)
    assert '<html lang="en">' in english and "You have a file to download" in english
    gone = client.get(url[:-3]).get_data(as_text=True)  # a mangled key: no such file
    assert '<html lang="en">' in gone and "File not found" in gone
