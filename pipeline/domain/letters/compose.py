"""What goes into a template letter's PDF: the service's language and letter brand, the letter's
references, and a bilingual template's English part. Pure: the PDF stage and the previews read the rows
and pass them in (pipeline/stages/letters/template_letters.py)."""
from __future__ import annotations

import datetime
from typing import Protocol
from zoneinfo import ZoneInfo

from pipeline.domain.i18n import DUTCH, ENGLISH
from pipeline.domain.letters.letterhead import LetterLogo, your_reference
from pipeline.domain.letters.pdf import LetterPdf, LetterSection, render_letter_pdf
from pipeline.domain.rendering import render
from pipeline.domain.rendering.address_names import NAMES
from pipeline.domain.rendering.placeholders import normalised_values

LETTER_TIMEZONE = ZoneInfo("Europe/Amsterdam")  # the date printed on a letter is the Dutch date


class LetterBrand(Protocol):
    """What a letter prints of a brand: its logo (a stored letter brand has it)."""

    @property
    def logo_png(self) -> bytes: ...
    @property
    def logo_width(self) -> int: ...
    @property
    def logo_height(self) -> int: ...


class Appearance(Protocol):
    """The service's language and letter brand (models.appearance.Appearance)."""

    @property
    def language(self) -> str: ...
    @property
    def letter_brand(self) -> LetterBrand | None: ...


class BilingualVersion(Protocol):
    """What a letter reads of its template version: whether it has an English part, and that part."""

    @property
    def bilingual(self) -> bool: ...
    @property
    def letter_english_body(self) -> str | None: ...
    @property
    def letter_english_subject(self) -> str | None: ...


def preview_address(language: str) -> list[str]:
    """Where a preview without an address puts it: the first three lines as placeholders, named in the
    reader's language as the send form and the spreadsheet's columns name them."""
    return [f"(({name}))" for name in NAMES.get(language, NAMES[ENGLISH])[:3]]


def letter_date(created_at: datetime.datetime) -> datetime.date:
    """The Dutch calendar date of a naive-UTC timestamp (a letter sent at 00:30 CET is dated that day)."""
    return created_at.replace(tzinfo=datetime.UTC).astimezone(LETTER_TIMEZONE).date()


def compose_letter(*, appearance: Appearance, version: BilingualVersion | None, values: dict, address_lines: list[str],
                   subject: str, body: str, contact_block: str | None, date: datetime.date,
                   notification_id: str | None, reference: str | None, sender: str) -> LetterPdf:
    """``subject`` and ``body`` are already filled in; a bilingual version's English part is filled here."""
    second = None
    if version is not None and version.bilingual:
        english = render("letter", version.letter_english_body or "", version.letter_english_subject, values)
        second = LetterSection(ENGLISH, english.subject or "", english.body)
    brand = appearance.letter_brand
    return render_letter_pdf(
        address_lines=address_lines, subject=subject, body=body, contact_block=contact_block, date=date,
        notification_id=notification_id,
        # A bilingual letter's first part is Dutch whatever the service's language.
        language=DUTCH if second else appearance.language, second=second,
        our_reference=reference, your_reference=your_reference(normalised_values(values)),
        logo=LetterLogo(bytes(brand.logo_png), brand.logo_width, brand.logo_height) if brand else None,
        sender=sender,
    )
