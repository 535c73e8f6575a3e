"""A letter's PDF drawn as one PNG per page (the console's previews), by PDFium."""
from __future__ import annotations

import io

from PIL import Image

from pipeline.domain.letters.page_images import page_images
from tests.pipeline.test_letter_pdf import render


def test_each_page_becomes_an_a4_png_with_the_text_drawn_on_it():
    letter = render(body="Line\n\n" * 80)
    images = [Image.open(io.BytesIO(png)) for png in page_images(letter.data)]
    assert letter.pages == len(images) >= 2
    assert {(image.format, image.size) for image in images} == {("PNG", (794, 1123))}
    first = images[0].convert("L")
    assert first.getpixel((5, 5)) == 255  # the margin is blank paper
    assert first.getextrema()[0] < 100  # and the page has dark text on it


def test_the_resolution_can_be_chosen():
    [image] = [Image.open(io.BytesIO(png)) for png in page_images(render().data, dpi=72)]
    assert image.size == (596, 842)  # A4 is 595.3 x 841.9 points; PDFium rounds up
