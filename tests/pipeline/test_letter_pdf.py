"""Template letters rendered to PDF and read back with pypdf: real bytes, no mocks."""

from __future__ import annotations

import datetime
import io

import pypdf
import pytest

from pipeline.domain.letters import geometry as g
from pipeline.domain.letters.pdf import (
    MAX_SHEETS,
    LetterLayoutError,
    LetterPdf,
    render_letter_pdf,
    sheets_for_pages,
)
from pipeline.domain.letters.precompiled import validate_precompiled

ADDRESS = ["A. de Vries", "Keizersgracht 123", "1015 CJ Amsterdam"]
CONTACT = "Gemeente Voorbeeld\nPostbus 1234\n1000 AB Amsterdam\n020 123 4567"
DATE = datetime.date(2026, 11, 22)


def render(body: str = "Dear Ms de Vries,\n\nYour permit is ready.", **overrides) -> LetterPdf:
    options = dict(address_lines=ADDRESS, subject="Your parking permit", body=body, contact_block=CONTACT,
                   date=DATE, notification_id=None)
    options.update(overrides)
    return render_letter_pdf(**options)


def page_texts(letter: LetterPdf) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(letter.data)).pages]


def text_positions(letter: LetterPdf, page: int = 0) -> dict[str, tuple[float, float]]:
    """Text run -> (x mm from the left, y mm from the top) of its baseline start."""
    found: dict[str, tuple[float, float]] = {}

    def visit(text, cm, tm, _font, _size):
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        if text.strip():
            found.setdefault(text.strip(), (g.mm(x), g.PAGE_HEIGHT - g.mm(y)))

    pypdf.PdfReader(io.BytesIO(letter.data)).pages[page].extract_text(visitor_text=visit)
    return found


def test_letter_reads_back_with_address_heading_body_date_and_page_number():
    letter = render()
    [text] = page_texts(letter)
    for expected in [*ADDRESS, "Your parking permit", "Dear Ms de Vries,", "Your permit is ready.",
                     "22 november 2026", "Pagina 1 van 1", "Gemeente Voorbeeld", "020 123 4567"]:
        assert expected in text
    assert (letter.pages, letter.sheets) == (1, 1)


def test_contact_block_keeps_its_line_breaks():
    lines = page_texts(render())[0].splitlines()
    start = lines.index("Gemeente Voorbeeld")
    assert lines[start:start + 4] == CONTACT.splitlines()


def test_fonts_are_embedded_truetype_and_helvetica_is_never_referenced():
    letter = render(body="Some **bold** text\n\n# A heading\n\n* a bullet")
    reader = pypdf.PdfReader(io.BytesIO(letter.data))
    fonts = reader.pages[0]["/Resources"]["/Font"]
    assert len(fonts) >= 2  # regular and bold
    for font in fonts.values():
        font = font.get_object()
        if "/DescendantFonts" in font:
            font = font["/DescendantFonts"][0].get_object()
        assert "/FontFile2" in font["/FontDescriptor"].get_object(), font
    assert b"Helvetica" not in letter.data


def test_address_sits_inside_the_envelope_window_and_contact_block_top_right():
    positions = text_positions(render())
    x, y = positions["A. de Vries"]
    assert g.WINDOW_LEFT < x < g.WINDOW_LEFT + g.WINDOW_WIDTH
    assert g.WINDOW_TOP < y < g.WINDOW_TOP + g.WINDOW_HEIGHT
    x, y = positions["1015 CJ Amsterdam"]
    assert g.WINDOW_TOP < y < g.WINDOW_TOP + g.WINDOW_HEIGHT
    x, y = positions["Gemeente Voorbeeld"]
    assert x == pytest.approx(g.CONTACT_LEFT, abs=0.01) and y < g.WINDOW_TOP
    assert positions["22 november 2026"][1] > g.WINDOW_TOP + g.WINDOW_HEIGHT  # the date is in the reference block
    assert positions["Your parking permit"][1] > g.WINDOW_TOP + g.WINDOW_HEIGHT  # body starts below the window


def test_rendered_letter_passes_our_own_precompiled_checks():
    letter = render(body="\n\n".join(f"Paragraph {n} " + "word " * 60 for n in range(40)),
                    notification_id="5b1b6d1c-1d4a-4a55-9a3e-6a2f0c8d9e01")
    check = validate_precompiled(letter.data)
    assert check.ok, check.problems
    assert (check.pages, check.sheets) == (letter.pages, letter.sheets)


def test_page_count_grows_with_a_long_body_and_every_page_is_numbered():
    short, long = render(), render(body="\n\n".join("A paragraph of the letter body. " * 8 for _ in range(60)))
    assert long.pages > short.pages
    assert long.sheets == (long.pages + 1) // 2
    texts = page_texts(long)
    assert len(texts) == long.pages
    for number, text in enumerate(texts, start=1):
        assert f"Pagina {number} van {long.pages}" in text


def test_three_dashes_start_a_new_page():
    letter = render(body="On the first page\n\n---\n\nOn the second page")
    first, second = page_texts(letter)
    assert "On the first page" in first and "On the second page" not in first
    assert "On the second page" in second and "Pagina 2 van 2" in second


def test_three_dashes_right_under_text_are_a_page_break_not_a_heading():
    first, second = page_texts(render(body="Line before\n---\nLine after"))
    assert "Line before" in first and "Line after" in second


def test_trailing_and_repeated_page_breaks_do_not_print_blank_pages():
    assert render(body="One\n\n---\n\n---\n\nTwo\n\n---\n").pages == 2


def test_markdown_subset_headings_lists_and_links():
    body = ("# Section title\n\nIntro\n\n* star item\n- dash item\n• dot item\n\n"
            "1. first step\n2. second step\n\nVisit [our site](https://voorbeeld.nl) or <https://x.nl>")
    text = page_texts(render(body=body))[0]
    assert "Section title" in text
    for item in ("• star item", "• dash item", "• dot item", "1. first step", "2. second step"):
        assert item in text
    assert "our site: https://voorbeeld.nl" in text
    assert "https://x.nl" in text and "https://x.nl: " not in text


def test_text_that_looks_like_markup_is_printed_literally():
    body = "Use <b>this</b> & <font size=40>that</font> &amp; <br/>"
    letter = render(body=body, subject="A < B & C > D", address_lines=["<para>", "Straat 1 & 2", "1234 AB Stad"])
    text = page_texts(letter)[0]
    assert body in text
    assert "A < B & C > D" in text and "Straat 1 & 2" in text and "<para>" in text


def test_notification_id_is_printed_small_in_the_footer():
    text = page_texts(render(notification_id="5b1b6d1c-1d4a-4a55-9a3e-6a2f0c8d9e01"))[0]
    assert "5b1b6d1c-1d4a-4a55-9a3e-6a2f0c8d9e01" in text


def test_no_contact_block_still_prints_the_date():
    text = page_texts(render(contact_block=None))[0]
    assert "22 november 2026" in text and "Gemeente" not in text


def test_rendering_is_deterministic_so_a_rerun_stores_the_same_file():
    assert render().data == render().data


def test_seven_line_address_fits_and_an_absurdly_long_one_does_not():
    seven = ["Line one", "Line two", "Line three", "Line four", "Line five", "Line six", "1015 CJ Amsterdam"]
    assert "Line six" in page_texts(render(address_lines=seven))[0]
    with pytest.raises(LetterLayoutError):
        render(address_lines=["word " * 60] * 7)


def test_contact_block_too_long_for_the_page_is_refused():
    with pytest.raises(LetterLayoutError):
        render(contact_block="\n".join(f"line {n}" for n in range(60)))


@pytest.mark.parametrize(("pages", "sheets"), [(1, 1), (2, 1), (3, 2), (20, 10), (21, 11)])
def test_sheets_are_pages_printed_double_sided(pages, sheets):
    assert sheets_for_pages(pages) == sheets


def test_letters_over_ten_sheets_are_detectable_by_the_caller():
    letter = render(body="\n\n---\n\n".join(f"Page body {n}" for n in range(22)))
    assert letter.pages == 22 and letter.sheets == 11 > MAX_SHEETS
