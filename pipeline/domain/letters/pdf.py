"""Template letter -> print-ready PDF (A4 portrait, embedded fonts, page numbers), with reportlab.

Pure: takes the already-personalised text and returns bytes; storing the PDF and moving the
notification's status are the worker's business. Geometry comes from geometry.py only.
"""

from __future__ import annotations

import datetime
import functools
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mistune
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageBreak, PageTemplate, Paragraph, Spacer

from pipeline.domain.i18n import DEFAULT_LANGUAGE, translator

from . import geometry as g
from .geometry import from_top, pt
from .letterhead import (
    CONTROL as _CONTROL,
    PAGE_NUMBER,
    LetterLogo,
    ReferenceBlock,
    SectionLanguage,
    draw_logo,
    escape as _esc,
    reference_block,
)

MAX_SHEETS = 10  # longer letters are validation-failed by the caller (the print provider's limit)

# DejaVu Sans from Debian's fonts-dejavu-core (Bitstream Vera licence, see fonts/LICENSE). A TrueType
# font registered with reportlab is embedded (subset, as FontFile2); the standard Helvetica is not,
# and print providers reject PDFs that rely on the printer's own fonts.
FONT = "NotifyLetterSans"
FONT_BOLD = "NotifyLetterSans-Bold"
_FONT_DIR = Path(__file__).parent / "fonts"
_BULLET_LINE = re.compile(r"^([ \t]*)•[ \t]*", re.MULTILINE)


class LetterLayoutError(ValueError):
    """The address or contact block cannot be laid out on the page (too long to fit)."""


@dataclass(frozen=True)
class LetterSection:
    """One language's version of the letter: it starts on a page of its own."""

    language: str
    subject: str
    body: str


@dataclass(frozen=True)
class LetterPdf:
    data: bytes
    pages: int
    sheets: int  # billable sheets = pages printed double-sided = ceil(pages / 2)


def sheets_for_pages(pages: int) -> int:
    """Letters are printed double-sided: two pages per sheet of paper."""
    return math.ceil(pages / 2)


@functools.cache
def _register_fonts() -> None:
    pdfmetrics.registerFont(TTFont(FONT, str(_FONT_DIR / "DejaVuSans.ttf")))
    pdfmetrics.registerFont(TTFont(FONT_BOLD, str(_FONT_DIR / "DejaVuSans-Bold.ttf")))
    # <b> in paragraph markup picks the bold face; there is no italic face, so italics stay upright.
    pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=FONT_BOLD, italic=FONT, boldItalic=FONT_BOLD)


@functools.cache
def _styles() -> dict[str, ParagraphStyle]:
    # Built by hand rather than from getSampleStyleSheet(): every font (bullets included) must be
    # ours, or reportlab silently falls back to the unembedded Helvetica.
    base = ParagraphStyle("body", fontName=FONT, fontSize=g.BODY_FONT_SIZE, leading=g.BODY_LEADING,
                          spaceAfter=g.BODY_LEADING / 2, bulletFontName=FONT,
                          bulletFontSize=g.BODY_FONT_SIZE)
    return {
        "body": base,
        "title": ParagraphStyle("title", base, fontName=FONT_BOLD, fontSize=g.HEADING_FONT_SIZE,
                                leading=g.HEADING_FONT_SIZE * 1.3, spaceAfter=g.BODY_LEADING,
                                keepWithNext=1),
        "h1": ParagraphStyle("h1", base, fontName=FONT_BOLD, fontSize=g.BODY_FONT_SIZE + 1,
                             leading=g.BODY_LEADING + 1, spaceBefore=4, keepWithNext=1),
        "h2": ParagraphStyle("h2", base, fontName=FONT_BOLD, spaceBefore=2, keepWithNext=1),
        "contact": ParagraphStyle("contact", base, fontSize=g.CONTACT_FONT_SIZE,
                                  leading=g.CONTACT_FONT_SIZE * 1.25, spaceAfter=0),
        "footer": ParagraphStyle("footer", base, fontSize=g.FOOTER_FONT_SIZE, alignment=TA_CENTER),
        "reference_label": ParagraphStyle("reference_label", base, fontName=FONT_BOLD,
                                          fontSize=g.REFERENCE_LABEL_FONT_SIZE,
                                          leading=g.REFERENCE_LABEL_FONT_SIZE * 1.3, spaceAfter=0),
        "reference_value": ParagraphStyle("reference_value", base, fontSize=g.REFERENCE_VALUE_FONT_SIZE,
                                          leading=g.REFERENCE_VALUE_FONT_SIZE * 1.3, spaceAfter=0),
    }


def _list_style(level: int) -> ParagraphStyle:
    return ParagraphStyle(f"list{level}", _styles()["body"], leftIndent=pt((level + 1) * g.LIST_INDENT),
                          bulletIndent=pt(level * g.LIST_INDENT), spaceAfter=2)


@functools.cache
def _markdown() -> mistune.Markdown:
    # The letter subset only: ATX headings, lists, `---` page breaks, paragraphs; inline bold and links.
    # No setext headings (so "text\n---" is a page break, not a heading), no code blocks, quotes or
    # raw HTML: those come out as the plain text the author typed.
    rules = ["atx_heading", "thematic_break", "list", "blank_line"]
    block = mistune.BlockParser(block_quote_rules=rules, list_rules=rules)
    block.rules = list(rules)
    inline = mistune.InlineParser()
    inline.rules = ["escape", "emphasis", "link", "link_close", "auto_link", "auto_email", "linebreak", "softbreak"]
    return mistune.Markdown(renderer=None, block=block, inline=inline)


def _plain(tokens: list[dict[str, Any]]) -> str:
    return "".join(t.get("raw", "") or _plain(t.get("children", [])) for t in tokens)


def _inline(tokens: list[dict[str, Any]]) -> str:
    out = []
    for tok in tokens:
        kind, children = tok["type"], tok.get("children", [])
        if kind in ("softbreak", "linebreak"):
            out.append("<br/>")  # line breaks the author typed are kept, as in the email
        elif kind == "strong":
            out.append(f"<b>{_inline(children)}</b>")
        elif kind == "link":
            # Paper cannot be clicked: print the address next to the words, unless they are the address.
            url = tok["attrs"]["url"]
            text = _plain(children)
            shown = url.removeprefix("mailto:")
            out.append(_inline(children) if text in (url, shown) else f"{_inline(children)}: {_esc(shown)}")
        elif children:
            out.append(_inline(children))
        else:
            out.append(_esc(tok.get("raw", "")))
    return "".join(out)


def _list(tok: dict[str, Any], level: int) -> list[Flowable]:
    attrs = tok["attrs"]
    style, start = _list_style(level), attrs.get("start", 1)
    flow: list[Flowable] = []
    for number, item in enumerate(tok["children"], start=start):
        bullet: str | None = f"{number}." if attrs["ordered"] else "•"
        for child in item["children"]:
            if child["type"] in ("block_text", "paragraph"):
                flow.append(Paragraph(_inline(child["children"]), style, bulletText=bullet))
                bullet = None  # only the item's first paragraph carries the bullet
            elif child["type"] == "list":
                flow.extend(_list(child, level + 1))
            else:
                flow.extend(_blocks([child]))
    if level == 0:
        flow.append(Spacer(1, g.BODY_LEADING / 2))
    return flow


def _blocks(tokens: list[dict[str, Any]]) -> list[Flowable]:
    styles, flow = _styles(), []
    for tok in tokens:
        kind = tok["type"]
        if kind in ("paragraph", "block_text"):
            flow.append(Paragraph(_inline(tok["children"]), styles["body"]))
        elif kind == "heading":
            style = styles["h1"] if tok["attrs"]["level"] == 1 else styles["h2"]
            flow.append(Paragraph(_inline(tok["children"]), style))
        elif kind == "list":
            flow.extend(_list(tok, 0))
        elif kind == "thematic_break":
            flow.append(PageBreak())
        elif tok.get("children"):
            flow.extend(_blocks(tok["children"]))
    return flow


def markdown_flowables(body: str) -> list[Flowable]:
    """The letter body (Markdown subset) as Platypus flowables; `---` becomes a page break."""
    # Templates (and list placeholders) use "•" bullets, which Markdown does not know.
    text = _BULLET_LINE.sub(r"\1* ", body.replace("\r\n", "\n").replace("\r", "\n"))
    tokens = _markdown()(text)
    assert isinstance(tokens, list)  # made without a renderer: the syntax tree, not HTML
    flow = _blocks(tokens)
    # A break with nothing after it, or straight after another break, would only print a blank page.
    while flow and isinstance(flow[-1], (PageBreak, Spacer)):
        flow.pop()
    return [f for i, f in enumerate(flow)
            if not (i > 0 and isinstance(f, PageBreak) and isinstance(flow[i - 1], PageBreak))]


def _fit_address(lines: list[str]) -> tuple[float, list[str]]:
    """Largest font size at which the wrapped address fits inside the window's clear area."""
    lines = [_CONTROL.sub("", line).strip() for line in lines if line and line.strip()]
    for size in g.ADDRESS_FONT_SIZES:
        wrapped = [part for line in lines for part in simpleSplit(line, FONT, size, pt(g.ADDRESS_WIDTH))]
        if len(wrapped) * size * 1.2 <= pt(g.ADDRESS_HEIGHT):
            return size, wrapped
    raise LetterLayoutError("The address does not fit in the envelope window")


class _PageCounter(Canvas):
    """The first of a letter's two layouts: only its page count is wanted, so nothing is written."""

    def save(self) -> None:
        pass


class _NumberedCanvas(Canvas):
    """The second layout: each footer says "Page N of M", M counted by the first (_PageCounter), in the
    language of the section the page belongs to."""

    def __init__(self, *args: Any, pages: int, notification_id: str | None = None, sender: str | None = None,
                 language: str = DEFAULT_LANGUAGE, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._total = pages
        self._notification_id = notification_id
        self._sender = sender
        self.section_language = language  # changed by SectionLanguage flowables

    def showPage(self) -> None:  # noqa: N802 (reportlab's name)
        self._footer(self.getPageNumber(), self._total)
        super().showPage()

    def _footer(self, number: int, total: int) -> None:
        self.setFont(FONT, g.FOOTER_FONT_SIZE)
        words = translator(self.section_language)
        self.drawCentredString(pt(g.PAGE_WIDTH / 2), pt(g.FOOTER_BASELINE),
                               words.gettext(PAGE_NUMBER, page=number, pages=total))
        if self._sender:
            self.drawRightString(pt(g.PAGE_WIDTH - g.BODY_RIGHT_MARGIN), pt(g.FOOTER_BASELINE),
                                 _CONTROL.sub("", self._sender)[:60])
        if self._notification_id:  # lets the print provider and support match a sheet to a record
            self.setFont(FONT, g.FOOTER_FONT_SIZE - 2)
            self.drawString(pt(g.BODY_LEFT), pt(g.FOOTER_BASELINE), _CONTROL.sub("", self._notification_id))


def _contact_paragraph(contact_block: str | None) -> tuple[Paragraph | None, float]:
    """The contact block and the mm from the page top where it ends (its top when there is none)."""
    if not (contact_block and contact_block.strip()):
        return None, g.CONTACT_TOP
    lines = contact_block.replace("\r\n", "\n").strip("\n").split("\n")
    para = Paragraph("<br/>".join(_esc(line) for line in lines), _styles()["contact"])
    _, height = para.wrap(pt(g.CONTACT_WIDTH), pt(g.PAGE_HEIGHT))
    bottom = g.CONTACT_TOP + g.mm(height)
    if bottom > g.CONTACT_MAX_BOTTOM:
        raise LetterLayoutError("The contact block is too long to fit on the letter")
    return para, bottom


def _section(section: LetterSection, reference: ReferenceBlock) -> list[Flowable]:
    words = translator(section.language)
    return [SectionLanguage(words.language), *reference_block(words, reference, section.subject, _styles()),
            *markdown_flowables(section.body)]


def render_letter_pdf(*, address_lines: list[str], subject: str, body: str, contact_block: str | None,
                      date: datetime.date, notification_id: str | None = None, language: str = DEFAULT_LANGUAGE,
                      second: LetterSection | None = None, our_reference: str | None = None,
                      your_reference: str | None = None, logo: LetterLogo | None = None,
                      sender: str | None = None) -> LetterPdf:
    """Render a template letter: ``subject`` and ``body`` in ``language``, then ``second`` (a bilingual
    letter's other language) from a new page. Raises LetterLayoutError when the address or contact
    block cannot fit."""
    _register_fonts()
    address_size, address = _fit_address(address_lines)
    contact, contact_bottom = _contact_paragraph(contact_block)
    first_top = max(g.REFERENCE_TOP, contact_bottom + g.REFERENCE_GAP_BELOW_CONTACT)

    def draw_first_page(canvas: Canvas, _doc: BaseDocTemplate) -> None:
        if logo is not None:
            draw_logo(canvas, logo)
        canvas.setFont(FONT, address_size)
        baseline = from_top(g.ADDRESS_TOP) - pdfmetrics.getAscent(FONT, address_size)
        for line in address:
            canvas.drawString(pt(g.ADDRESS_LEFT), baseline, line)
            baseline -= address_size * 1.2
        if contact is not None:
            contact.drawOn(canvas, pt(g.CONTACT_LEFT), from_top(contact_bottom))

    def frame(name: str, top_mm: float) -> Frame:
        return Frame(pt(g.BODY_LEFT), pt(g.BODY_BOTTOM), pt(g.BODY_WIDTH), from_top(top_mm) - pt(g.BODY_BOTTOM),
                     leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0, id=name)

    def build(output: io.BytesIO, canvasmaker: Any) -> int:
        """Lay the letter out on fresh flowables (a build consumes them) and return its page count."""
        doc = BaseDocTemplate(
            output, pagesize=(pt(g.PAGE_WIDTH), pt(g.PAGE_HEIGHT)), title=subject,
            lang=translator(language).locale.replace("_", "-"),
            invariant=True,  # same input, same bytes: a re-run of the PDF stage stores an identical file
            initialFontName=FONT,  # otherwise every page's resources name the unembedded Helvetica
            pageCompression=1,
            pageTemplates=[
                PageTemplate("first", [frame("first", first_top)], onPage=draw_first_page,
                             autoNextPageTemplate="later"),
                PageTemplate("later", [frame("later", g.BODY_TOP_OTHER_PAGES)]),
            ],
        )
        reference = ReferenceBlock(our_reference, your_reference, date)
        story = _section(LetterSection(language, subject, body), reference)
        if second is not None:
            story += [PageBreak(), *_section(second, reference)]
        doc.build(story, canvasmaker=canvasmaker)
        return int(doc.page)

    # "Page N of M" needs M on page 1: reportlab offers no way to hold pages back until the end other
    # than its private page state, so the letter is laid out twice, the first time only to count.
    pages = build(io.BytesIO(), _PageCounter)
    buffer = io.BytesIO()
    build(buffer, functools.partial(_NumberedCanvas, pages=pages, notification_id=notification_id,
                                    sender=sender, language=language))
    return LetterPdf(data=buffer.getvalue(), pages=pages, sheets=sheets_for_pages(pages))
