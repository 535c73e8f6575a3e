"""Checks on uploaded letter PDFs, against real PDFs drawn with reportlab (and altered with pypdf)."""

from __future__ import annotations

import datetime
import io
from collections.abc import Callable

import pypdf
import pytest
from PIL import Image
from pypdf.annotations import FreeText
from pypdf.generic import NameObject, NumberObject
from reportlab.lib.colors import black, white
from reportlab.lib.pagesizes import A4, A5, LETTER, landscape
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from pipeline.domain.letters.pdf import render_letter_pdf
from pipeline.domain.letters.precompiled import NotAPdf, PrecompiledCheck, check_is_pdf, validate_precompiled

WIDTH, HEIGHT = A4
OUTSIDE = "content outside the printable area on page 1"


def body_text(canvas: Canvas, number: int) -> None:
    canvas.setFont("Helvetica", 11)
    canvas.drawString(25 * mm, HEIGHT - 60 * mm, f"This is page {number + 1} of the letter")


def make_pdf(draw: Callable[[Canvas, int], None] = body_text, *, pagesize=A4, pages: int = 1) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=pagesize)
    for number in range(pages):
        draw(canvas, number)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def one_page(draw: Callable[[Canvas], None]) -> PrecompiledCheck:
    return validate_precompiled(make_pdf(lambda canvas, _n: draw(canvas)))


def a_picture() -> ImageReader:
    return ImageReader(Image.new("RGB", (8, 8), (200, 30, 30)))


def test_a_plain_a4_letter_passes():
    check = validate_precompiled(make_pdf(pages=3))
    assert check == PrecompiledCheck(ok=True, pages=3, sheets=2, problems=[])


def test_our_own_rendered_letter_passes():
    letter = render_letter_pdf(address_lines=["J. Jansen", "Dorpsstraat 1", "1234 AB Ergens"], subject="Hello",
                               body="Body text", contact_block="Us\nHere", date=datetime.date(2026, 11, 22))
    assert validate_precompiled(letter.data).ok


@pytest.mark.parametrize("pagesize", [A5, landscape(A4), LETTER], ids=["A5", "A4-landscape", "US-letter"])
def test_pages_that_are_not_a4_portrait_fail(pagesize):
    check = validate_precompiled(make_pdf(pagesize=pagesize))
    assert not check.ok
    assert check.problems == ["page 1 is not A4 portrait"]


def test_only_the_wrong_page_is_reported():
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    for size in (A4, A5, A4):
        canvas.setPageSize(size)
        body_text(canvas, 0)
        canvas.showPage()
    canvas.save()
    assert validate_precompiled(buffer.getvalue()).problems == ["page 2 is not A4 portrait"]


def rotated(data: bytes, degrees: int) -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(data))
    writer.pages[0].rotate(degrees)  # sets /Rotate, leaves the media box as it is
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize("degrees", [90, 270])
def test_rotate_decides_the_orientation_that_prints(degrees):
    def draw(canvas: Canvas, _n: int) -> None:
        canvas.drawString(40 * mm, 40 * mm, "inside the margins")

    assert validate_precompiled(rotated(make_pdf(draw, pagesize=landscape(A4)), degrees)).ok
    assert validate_precompiled(rotated(make_pdf(draw), degrees)).problems == ["page 1 is not A4 portrait"]


def test_text_at_the_page_edge_fails():
    check = one_page(lambda c: c.drawString(2 * mm, HEIGHT / 2, "too close to the left edge"))
    assert check.problems == [OUTSIDE]


def test_text_running_past_the_right_margin_fails_even_though_it_starts_inside():
    check = one_page(lambda c: c.drawString(150 * mm, HEIGHT / 2, "a long line that runs off the page edge"))
    assert check.problems == [OUTSIDE]


@pytest.mark.parametrize(("right_edge_mm", "ok"), [(16, True), (14, False)])
def test_text_width_comes_from_font_metrics(right_edge_mm, ok):
    check = one_page(lambda c: c.drawRightString(WIDTH - right_edge_mm * mm, HEIGHT / 2, "Right aligned WWW"))
    assert check.ok is ok


@pytest.mark.parametrize(("baseline_mm", "ok"), [(17, True), (15.2, False)])
def test_descenders_below_the_bottom_margin_fail(baseline_mm, ok):
    assert one_page(lambda c: c.drawString(30 * mm, baseline_mm * mm, "gjpqy")).ok is ok


def test_rotated_text_near_the_edge_fails():
    def draw(canvas: Canvas) -> None:
        canvas.translate(14 * mm, 100 * mm)
        canvas.rotate(90)
        canvas.drawString(0, 0, "sideways")

    assert one_page(draw).problems == [OUTSIDE]


def test_rectangles_and_lines_are_checked():
    assert one_page(lambda c: c.rect(5 * mm, 100 * mm, 20 * mm, 20 * mm, fill=1)).problems == [OUTSIDE]
    assert one_page(lambda c: c.line(30 * mm, 30 * mm, 30 * mm, 290 * mm)).problems == [OUTSIDE]
    assert one_page(lambda c: c.rect(20 * mm, 20 * mm, 100 * mm, 100 * mm, fill=1)).ok


def test_a_white_page_background_is_not_ink():
    def draw(canvas: Canvas) -> None:
        canvas.setFillColor(white)
        canvas.rect(0, 0, WIDTH, HEIGHT, fill=1, stroke=0)
        canvas.setFillColor(black)
        canvas.drawString(30 * mm, 200 * mm, "text on a white background")

    assert one_page(draw).ok


def test_invisible_text_is_not_ink():
    def draw(canvas: Canvas) -> None:
        text = canvas.beginText(1 * mm, 1 * mm)
        text.setTextRenderMode(3)  # as OCR layers do
        text.textLine("invisible")
        canvas.drawText(text)

    assert one_page(draw).ok


def test_content_clipped_to_the_printable_area_passes():
    def draw(canvas: Canvas) -> None:
        clip = canvas.beginPath()
        clip.rect(20 * mm, 20 * mm, 170 * mm, 257 * mm)
        canvas.clipPath(clip, stroke=0, fill=0)
        canvas.rect(0, 0, WIDTH, HEIGHT, fill=1)

    assert one_page(draw).ok


@pytest.mark.parametrize(("x_mm", "ok"), [(5, False), (30, True)])
def test_images_are_checked(x_mm, ok):
    assert one_page(lambda c: c.drawImage(a_picture(), x_mm * mm, 100 * mm, 20 * mm, 20 * mm)).ok is ok


def test_inline_images_are_checked():
    checked = one_page(lambda c: c.drawInlineImage(Image.new("L", (4, 4)), 200 * mm, 100 * mm, 20 * mm, 20 * mm))
    assert checked.problems == [OUTSIDE]


@pytest.mark.parametrize(("x_mm", "ok"), [(5, False), (30, True)])
def test_form_xobjects_are_followed(x_mm, ok):
    def draw(canvas: Canvas) -> None:
        canvas.beginForm("logo")
        canvas.rect(0, 0, 20 * mm, 10 * mm, fill=1)
        canvas.endForm()
        canvas.translate(x_mm * mm, 250 * mm)
        canvas.doForm("logo")

    assert one_page(draw).ok is ok


def test_an_unclipped_shading_covers_the_page():
    def gradient(canvas: Canvas, clipped: bool) -> None:
        if clipped:
            clip = canvas.beginPath()
            clip.rect(30 * mm, 30 * mm, 50 * mm, 50 * mm)
            canvas.clipPath(clip, stroke=0, fill=0)
        canvas.linearGradient(30 * mm, 30 * mm, 80 * mm, 80 * mm, (black, white))

    assert one_page(lambda c: gradient(c, clipped=False)).problems == [OUTSIDE]
    assert one_page(lambda c: gradient(c, clipped=True)).ok


def test_printable_annotations_count_but_links_do_not():
    def with_annotation(flags: int) -> bytes:
        writer = pypdf.PdfWriter(clone_from=io.BytesIO(make_pdf()))
        note = FreeText(text="stamp", rect=(2, 2, 60, 30))
        note[NameObject("/F")] = NumberObject(flags)
        writer.add_annotation(page_number=0, annotation=note)
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()

    assert validate_precompiled(with_annotation(4)).problems == [OUTSIDE]  # 4 = Print
    assert validate_precompiled(with_annotation(0)).ok  # screen-only annotations are not printed
    assert one_page(lambda c: c.linkURL("https://voorbeeld.nl", (0, 0, 50, 50))).ok


def test_twenty_pages_is_ten_sheets_and_passes():
    check = validate_precompiled(make_pdf(pages=20))
    assert (check.ok, check.pages, check.sheets) == (True, 20, 10)


def test_twenty_one_pages_is_too_long():
    check = validate_precompiled(make_pdf(pages=21))
    assert (check.ok, check.pages, check.sheets) == (False, 21, 11)
    assert check.problems == ["letter is longer than 10 sheets"]


def test_check_is_pdf_counts_pages():
    assert check_is_pdf(make_pdf(pages=4)) == 4


@pytest.mark.parametrize("data", [
    b"",
    b"hello, this is not a pdf",
    b"\x89PNG\r\n\x1a\n" + bytes(200),
    make_pdf()[:600],  # truncated upload
], ids=["empty", "text", "png", "truncated"])
def test_bytes_that_are_not_a_pdf_raise(data):
    with pytest.raises(NotAPdf):
        check_is_pdf(data)
    with pytest.raises(NotAPdf):
        validate_precompiled(data)


def test_a_password_protected_pdf_is_not_a_usable_pdf():
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(make_pdf()))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(NotAPdf):
        check_is_pdf(out.getvalue())


def test_a_pdf_encrypted_without_a_user_password_can_be_read():
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(make_pdf()))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    assert validate_precompiled(out.getvalue()).ok
