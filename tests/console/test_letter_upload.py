"""A precompiled letter uploaded in the console, in a real browser with axe-core: refused files (not
a PDF, a virus, too big) with the reason in Dutch; a letter outside the printable area shown page by
page with the problem and no send button; a good letter previewed page by page, sent, scanned and
printed by the same stages as a letter sent by API."""
from __future__ import annotations

import io
import re

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from core.letter_uploads import MAX_PDF_BYTES
from models.notification import Notification
from models.service import Service
from pipeline.infrastructure.storage import letter_pdf_key, letter_storage
from pipeline.infrastructure.virus_scan import EICAR
from tests.conftest import wait_for
from tests.console.browser import assert_accessible, sign_in
from tests.console.users import create_console_user
from tests.factories import create_service


def a_letter(pages: int = 2, *, in_margin: bool = False, extra: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    for number in range(pages):
        canvas.drawString(25 * mm, A4[1] - 60 * mm, f"Page {number + 1}")
        if in_margin and number == 1:
            canvas.drawString(1 * mm, 100 * mm, "in the margin")
        canvas.showPage()
    canvas.save()
    return buffer.getvalue() + extra


def _upload(page, service, name: str, data: bytes) -> None:
    page.goto(f"/services/{service.id}/upload-letter")
    page.set_input_files("#file", files=[{"name": name, "mimeType": "application/pdf", "buffer": data}])
    page.locator("main form").get_by_role("button", name="Uploaden en controleren").click()


@pytest.fixture
def sender(service):
    return create_console_user(service=service, permissions=["view_activity", "send_messages"])


def test_a_letter_is_checked_previewed_page_by_page_and_sent(page, service, sender, worker):
    sign_in(page, sender)
    page.goto(f"/services/{service.id}")
    page.locator(".notify-service-nav").get_by_role("link", name="Een brief uploaden").click()
    assert_accessible(page)

    _upload(page, service, "not-a-letter.pdf", b"just text")
    assert "Het bestand is geen leesbare pdf" in page.inner_text(".notify-error-summary")
    assert_accessible(page)
    # EICAR after the PDF's end: still a readable PDF, found by the scan before anything renders it.
    _upload(page, service, "virus.pdf", a_letter(extra=b"\n" + EICAR))
    assert "Het bestand bevat een virus. Er is niets verstuurd." in page.inner_text(".notify-error-summary")
    _upload(page, service, "margins.pdf", a_letter(3, in_margin=True))
    page.wait_for_url(re.compile(r".*/upload-letter/[0-9a-f-]{36}$"))
    assert page.inner_text("#print-problems") == "Pagina 2 heeft inhoud buiten het bedrukbare gebied"
    assert page.locator("#letter-pages img").count() == 3
    assert page.get_by_role("button", name="1 brief versturen").count() == 0
    assert_accessible(page)
    assert Notification.select().count() == 0

    uploaded = a_letter(3)
    _upload(page, service, "besluit-2026-17.pdf", uploaded)
    page.wait_for_url(re.compile(r".*/upload-letter/[0-9a-f-]{36}$"))
    assert page.inner_text("h1") == "besluit-2026-17.pdf"
    assert page.inner_text("#letter-size") == "3 pagina's · 2 vellen"
    images = page.locator("#letter-pages img")
    assert images.count() == 3 and images.nth(2).get_attribute("alt") == "Pagina 3 van 3 van de brief"
    assert images.nth(0).evaluate("img => img.naturalWidth") == 794  # rendered at 96 dpi, as it prints
    assert_accessible(page)
    preview_url = page.url
    page.check("#postage-0")  # first class
    page.get_by_role("button", name="1 brief versturen").click()
    page.wait_for_url(re.compile(r".*/notifications/[0-9a-f-]{36}$"))
    assert "Uw brief is verstuurd" in page.inner_text(".notify-flashes")
    assert_accessible(page)

    letter = Notification.get()
    assert (letter.precompiled, letter.reference, letter.postage, letter.key_type) == (
        True, "besluit-2026-17.pdf", "first", "live")
    assert letter.created_by_user_id == sender.user.id
    wait_for(lambda: Notification.get_by_id(letter.id).status not in ("pending-virus-check",))
    assert Notification.get_by_id(letter.id).status in ("created", "sending", "delivered")
    assert Notification.get_by_id(letter.id).billable_units == 2
    assert letter_storage().get(letter_pdf_key(letter.id)) == uploaded  # byte for byte, as uploaded
    assert page.goto(preview_url).status == 404  # sent: the upload is gone


def test_a_file_over_5_mb_is_refused(page, service, sender):
    sign_in(page, sender)
    _upload(page, service, "big.pdf", a_letter(extra=b"0" * MAX_PDF_BYTES))
    assert "Het bestand is groter dan 5 MB" in page.inner_text(".notify-error-summary")
    assert_accessible(page)


def test_a_trial_service_is_told_it_cannot_send_letters(page, service, sender):
    Service.update(trial_mode=True).where(Service.id == service.id).execute()
    sign_in(page, sender)
    _upload(page, service, "letter.pdf", a_letter())
    summary = page.locator(".notify-error-summary")
    assert "In proefmodus kan deze dienst geen brieven versturen. Wat proefmodus betekent" in summary.inner_text()
    assert summary.get_by_role("link", name="Wat proefmodus betekent").count() == 1


def test_another_services_upload_is_not_found(page, sender, service):
    other = create_service()
    create_console_user(service=other, permissions=["send_messages"])
    sign_in(page, sender)
    _upload(page, service, "letter.pdf", a_letter())
    page.wait_for_url(re.compile(r".*/upload-letter/[0-9a-f-]{36}$"))
    upload_id = page.url.rsplit("/", 1)[1]
    assert page.goto(f"/services/{other.id}/upload-letter/{upload_id}").status in (403, 404)
    assert page.goto(f"/services/{service.id}/upload-letter/not-an-id").status == 404


def test_an_unreachable_scanner_refuses_the_upload_rather_than_passing_it(service):
    import dataclasses
    import socket

    import config
    from api.errors import answer_of
    from core.letter_uploads import SCANNER_DOWN, check_letter_upload
    from pipeline.domain.errors import BadRequestError
    from pipeline.stages.sends.sender import Sender

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    before = config.get_settings()
    config._settings = dataclasses.replace(before, clamd_url=f"tcp://127.0.0.1:{port}")
    try:
        with pytest.raises(BadRequestError) as refused:
            check_letter_upload(Sender(service, "live"), a_letter())
    finally:
        config._settings = before
    assert (answer_of(refused.value)[0], refused.value.messages) == (503, [SCANNER_DOWN])


def test_the_print_checks_findings_are_those_of_the_letter_stage(service):
    from core.letter_uploads import check_letter_upload
    from pipeline.stages.sends.sender import Sender

    checked = check_letter_upload(Sender(service, "live"), a_letter(3, in_margin=True))
    assert (checked.pages, checked.sheets, checked.problems) == (3, 2, ["content outside the printable area on page 2"])
