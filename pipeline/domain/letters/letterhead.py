"""The parts of a letter around its body: logo, reference block, section language and footer.

Dutch business-letter conventions (NEN 1026): the logo top left, the address in the window, the
sender's contact block top right, and under the window a reference block with "Ons kenmerk",
"Uw kenmerk", "Datum" and "Onderwerp" before the body. All positions come from geometry.py.
"""
from __future__ import annotations

import datetime
import io
import re
from dataclasses import dataclass
from typing import Any

from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from pipeline.domain.i18n import N_, Translator

from . import geometry as g
from .geometry import from_top, pt

OUR_REFERENCE, YOUR_REFERENCE = N_("Our reference"), N_("Your reference")
DATE, SUBJECT = N_("Date"), N_("Subject")
PAGE_NUMBER = N_("Page %(page)s of %(pages)s")
# C0 control characters (other than tab/newline) are not text and would break the paragraph parser.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Personalisation keys (normalised: case, spaces, '_' and '-' ignored) that fill "Uw kenmerk".
YOUR_REFERENCE_KEYS = ("uwkenmerk", "yourreference")


@dataclass(frozen=True)
class LetterLogo:
    png: bytes
    width: int  # pixels
    height: int


@dataclass(frozen=True)
class ReferenceBlock:
    our_reference: str | None
    your_reference: str | None
    date: datetime.date


def escape(text: str) -> str:
    """Plain text -> reportlab paragraph mini-markup (an XML dialect), so user text is never markup."""
    text = CONTROL.sub("", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def logo_box(logo: LetterLogo) -> tuple[float, float, float, float]:
    """(left, top, width, height) in mm: the logo scaled to fit its zone, anchored top left."""
    scale = min(g.LOGO_MAX_WIDTH / logo.width, g.LOGO_MAX_HEIGHT / logo.height)
    return g.LOGO_LEFT, g.LOGO_TOP, logo.width * scale, logo.height * scale


def draw_logo(canvas: Canvas, logo: LetterLogo) -> None:
    left, top, width, height = logo_box(logo)
    canvas.drawImage(ImageReader(io.BytesIO(logo.png)), pt(left), from_top(top + height), pt(width), pt(height),
                     mask="auto")


def reference_block(words: Translator, reference: ReferenceBlock, subject: str,
                    styles: dict[str, ParagraphStyle]) -> list[Flowable]:
    """The reference line (only the references there are, and always the date), then the subject."""
    label, value = styles["reference_label"], styles["reference_value"]
    cells = [(OUR_REFERENCE, reference.our_reference), (YOUR_REFERENCE, reference.your_reference),
             (DATE, words.date(reference.date))]
    shown = [(name, text) for name, text in cells if text and text.strip()]
    column = pt(g.BODY_WIDTH) / 3
    row = Table([[[Paragraph(escape(words.gettext(name)), label), Paragraph(escape(text), value)]
                  for name, text in shown]], colWidths=[column] * len(shown), hAlign="LEFT")
    # The cells' own font is never drawn with (they hold paragraphs) but would still be referenced.
    row.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), value.fontName),
                             ("LEFTPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (-1, -1), 6),
                             ("TOPPADDING", (0, 0), (-1, -1), 0), ("BOTTOMPADDING", (0, 0), (-1, -1), 0),
                             ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    return [
        row, Spacer(1, pt(3)),
        Paragraph(escape(words.gettext(SUBJECT)), label),
        Paragraph(escape(subject), styles["title"]),
        Spacer(1, pt(g.REFERENCE_GAP_BELOW) - styles["title"].spaceAfter),
    ]


def your_reference(values: dict[str, object]) -> str | None:
    """"Uw kenmerk" from the personalisation (values keyed by normalised name)."""
    for key in YOUR_REFERENCE_KEYS:
        if values.get(key) not in (None, ""):
            return str(values[key])
    return None


class SectionLanguage(Flowable):
    """Invisible: tells the canvas which language the pages from here on are in (for the footer)."""

    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def wrap(self, *_args: Any) -> tuple[float, float]:
        return 0, 0

    def draw(self) -> None:
        self.canv.section_language = self.language
