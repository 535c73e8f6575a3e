"""Render what recipients get and look at it: the download page and an HTML email in headless
chromium, letters through pdftoppm, in each language, with and without branding.

Assertions are on what is visible: the page's language, its headings and text, where the logo and
address land, the colours of pixels in the rendered image, and axe-core's WCAG 2 A/AA checks.
"""
from __future__ import annotations

import datetime
import io
import subprocess
from pathlib import Path

import pypdf
import pytest
from PIL import Image

from models.appearance import ServiceAppearance
from pipeline.domain.branding.logos import process_logo
from pipeline.domain.letters import geometry as g
from pipeline.domain.letters.letterhead import LetterLogo
from pipeline.domain.letters.pdf import LetterSection, render_letter_pdf
from pipeline.domain.letters.precompiled import validate_precompiled
from pipeline.domain.rendering import render
from pipeline.domain.rendering.layout import EmailBrandView
from tests.api.test_download_page import link
from tests.factories import create_service
from tests.look.conftest import axe_violations, keep
from tests.pdf_layout import WINDOW, image_boxes, overlaps
from tests.pipeline.test_logos import SVG

LOGO = process_logo(SVG)  # a blue square and "Gemeente", rasterised from SVG as an upload would be
LOGO_URL = "https://logo.example.test/gemeente.png"
BRAND_BLUE = (21, 66, 115)
EMAIL_BODY = ("Beste ((naam)),\n\n# Uw aanvraag\n\nUw parkeervergunning is klaar.\n\n"
              "* Kenteken: ((kenteken))\n* Zone: Centrum")
DUTCH_TEXT = {"heading": "U heeft een bestand om te downloaden", "footer": "Deze e-mail is verstuurd door"}
ENGLISH_TEXT = {"heading": "You have a file to download", "footer": "This email was sent by"}


def _brand(colour: str | None = "#154273", beside: bool = True) -> EmailBrandView:
    return EmailBrandView(name="Gemeente Voorbeeld", colour=colour, logo_url=LOGO_URL, logo_width=195,
                          logo_height=60, beside_service_name=beside)


@pytest.mark.parametrize("language, words", [("nl", DUTCH_TEXT), ("en", ENGLISH_TEXT)])
def test_download_page_in_each_language(page, live_server, language, words, tmp_path):
    service = create_service(name="Gemeente Voorbeeld", file_download_contact="help@voorbeeld.nl")
    ServiceAppearance.create(service=service, language=language)
    page.goto(live_server + link(service))
    assert page.evaluate("document.documentElement.lang") == language
    assert page.locator("h1").inner_text() == words["heading"]
    assert page.locator("label").inner_text() in ("Bevestig uw e-mailadres", "Confirm your email address")
    page.locator("button").click()  # nothing typed: the error in the page's language
    error = page.locator(".error-summary").inner_text()
    assert ("Vul uw e-mailadres in" if language == "nl" else "Enter your email address") in error
    assert axe_violations(page) == []
    keep(f"download-page-{language}.png", page.screenshot(full_page=True), tmp_path, reference=language == "nl")
    page.goto(live_server + link(service)[:-3])  # a mangled key: the not-found page, same language
    assert page.evaluate("document.documentElement.lang") == language
    assert page.locator("h1").inner_text() == ("Bestand niet gevonden" if language == "nl" else "File not found")
    assert axe_violations(page) == []


def _email_page(page, html: str) -> None:
    page.set_viewport_size({"width": 640, "height": 420})
    page.route(LOGO_URL, lambda route: route.fulfill(body=LOGO.png, content_type="image/png"))
    page.set_content(html, wait_until="load")


@pytest.mark.parametrize("language", ["nl", "en"])
@pytest.mark.parametrize("branded", [False, True])
def test_html_email_in_each_language_with_and_without_brand(page, language, branded, tmp_path):
    rendered = render("email", EMAIL_BODY, "Uw parkeervergunning", {"naam": "Jan", "kenteken": "AB-123-C"},
                      language=language, service_name="Parkeren Voorbeeld", brand=_brand() if branded else None)
    _email_page(page, rendered.html)
    assert page.evaluate("document.documentElement.lang") == language
    visible = page.locator("body").inner_text()
    assert "Beste Jan," in visible and "Kenteken: AB-123-C" in visible
    assert (DUTCH_TEXT if language == "nl" else ENGLISH_TEXT)["footer"] in visible
    assert page.locator("h2").inner_text() == "Uw aanvraag"
    logos = page.locator("img")
    if branded:
        assert logos.count() == 1 and logos.get_attribute("alt") == "Gemeente Voorbeeld"
        assert page.evaluate("document.images[0].naturalWidth") > 0  # the logo really loaded
        box = logos.bounding_box()
        assert box["height"] == 60 and box["y"] < 40  # in the header, above the message
        assert "Parkeren Voorbeeld" in visible  # "both": the brand sits beside the service name
        shot = Image.open(io.BytesIO(page.screenshot()))
        assert shot.getpixel((3, 5))[:3] == BRAND_BLUE  # the header band in the brand colour
    else:
        assert logos.count() == 0 and visible.startswith("Parkeren Voorbeeld")
    assert axe_violations(page) == []
    name = f"email-{language}-{'branded' if branded else 'plain'}.png"
    keep(name, page.screenshot(full_page=True), tmp_path, reference=(language == "nl") is branded)


def test_email_keeps_its_colours_when_the_reader_prefers_dark(browser):
    context = browser.new_context(viewport={"width": 640, "height": 420}, color_scheme="dark")
    page = context.new_page()
    try:
        _email_page(page, render("email", EMAIL_BODY, "Onderwerp", {"naam": "Jan", "kenteken": "X"},
                                 service_name="Parkeren Voorbeeld", brand=_brand()).html)
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        body = page.evaluate("getComputedStyle(document.querySelector('p')).color")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (body, background) == ("rgb(11, 12, 12)", "rgb(255, 255, 255)")  # not repainted: still readable
        assert axe_violations(page) == []
    finally:
        context.close()


def test_light_brand_colour_gets_dark_header_text(page):
    html = render("email", "Hallo", "Hallo", {}, service_name="Gemeente Geel",
                  brand=_brand(colour="#ffdd00")).html
    _email_page(page, html)
    colour = page.evaluate("getComputedStyle(document.querySelector('td td td:last-child')).color")
    assert colour == "rgb(11, 12, 12)"  # near-black on yellow; white would fail the contrast check
    assert axe_violations(page) == []


def _pdf_pages_as_images(pdf: bytes, tmp_path: Path, stem: str, dpi: int = 60) -> list[Image.Image]:
    source = tmp_path / f"{stem}.pdf"
    source.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(source), str(tmp_path / stem)], check=True)
    return [Image.open(path).convert("RGB") for path in sorted(tmp_path.glob(f"{stem}-*.png"))]


def _ink_in(image: Image.Image, left: float, top: float, right: float, bottom: float) -> int:
    """Pixels that are not white inside a box given in mm."""
    scale = image.width / g.PAGE_WIDTH
    region = image.crop((round(left * scale), round(top * scale), round(right * scale), round(bottom * scale)))
    return sum(1 for pixel in region.get_flattened_data() if min(pixel) < 200)


def _letter(language: str, *, logo: bool, second: LetterSection | None = None) -> bytes:
    subject, body = (("Uw parkeervergunning", "Beste mevrouw De Vries,\n\nUw vergunning is klaar.") if language == "nl"
                     else ("Your parking permit", "Dear Ms De Vries,\n\nYour permit is ready."))
    return render_letter_pdf(
        address_lines=["A. de Vries", "Keizersgracht 123", "1015 CJ Amsterdam"], subject=subject, body=body,
        contact_block="Gemeente Voorbeeld\nPostbus 1234\n1000 AB Amsterdam\n020 123 4567",
        date=datetime.date(2026, 11, 23), notification_id="5b1b6d1c-1d4a-4a55-9a3e-6a2f0c8d9e01", language=language,
        second=second, our_reference="VG-2026-0042", your_reference="AB/123",
        logo=LetterLogo(LOGO.png, LOGO.width, LOGO.height) if logo else None, sender="Gemeente Voorbeeld",
    ).data


@pytest.mark.parametrize("language", ["nl", "en"])
@pytest.mark.parametrize("branded", [False, True])
def test_letter_in_each_language_with_and_without_logo(language, branded, tmp_path):
    pdf = _letter(language, logo=branded)
    assert validate_precompiled(pdf).ok
    [image] = _pdf_pages_as_images(pdf, tmp_path, "letter")
    logo_zone = (g.LOGO_LEFT, g.LOGO_TOP, g.LOGO_LEFT + g.LOGO_MAX_WIDTH, g.LOGO_TOP + g.LOGO_MAX_HEIGHT)
    assert (_ink_in(image, *logo_zone) > 100) is branded
    if branded:
        [box] = image_boxes(pdf)
        assert not overlaps(box, *WINDOW)
        scale = image.width / g.PAGE_WIDTH
        pixel = image.getpixel((round((box[0] + 2) * scale), round((box[1] + 2) * scale)))
        assert all(abs(a - b) < 12 for a, b in zip(pixel, BRAND_BLUE, strict=True))  # the logo's blue, printed top left
    assert _ink_in(image, *WINDOW) > 50  # the address shows through the window
    # Nothing printed within the margins: the grippers' strip stays blank (the outer 1 mm is left out:
    # A4 is not a whole number of pixels, so the last row and column are anti-aliased page edge).
    margin, edge, w, h = g.PRINTABLE_MARGIN - 1, 1, g.PAGE_WIDTH, g.PAGE_HEIGHT
    for strip in ((edge, edge, w - edge, margin), (edge, h - margin, w - edge, h - edge),
                  (edge, edge, margin, h - edge), (w - margin, edge, w - edge, h - edge)):
        assert _ink_in(image, *strip) == 0
    keep(f"letter-{language}-{'branded' if branded else 'plain'}.png", _png(image), tmp_path,
         reference=language == "nl" and branded)


def test_bilingual_letter_renders_dutch_then_english(tmp_path):
    pdf = _letter("nl", logo=True, second=LetterSection("en", "Your parking permit", "Dear Ms De Vries,"))
    first, second = _pdf_pages_as_images(pdf, tmp_path, "bilingual")
    pages = [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]
    assert "A. de Vries" in pages[0] and "A. de Vries" not in pages[1]  # one address, on page 1
    assert "Pagina 1 van 2" in pages[0] and "Page 2 of 2" in pages[1]
    assert len(image_boxes(pdf, 0)) == 1 and image_boxes(pdf, 1) == []  # the logo on page 1 only
    assert _ink_in(first, *WINDOW) > 50
    keep("letter-bilingual-page-2.png", _png(second), tmp_path, reference=True)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
