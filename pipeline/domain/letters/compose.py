"""What goes into a template letter's PDF: the service's language and letter brand, the letter's
references, and a bilingual template's English part. Used by the PDF stage and by previews."""
from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

from models.appearance import Appearance, appearance_of
from models.notification import Notification
from models.template import TemplateVersion, contact_block_of
from pipeline.domain.i18n import DUTCH, ENGLISH
from pipeline.domain.letters.letterhead import LetterLogo, your_reference
from pipeline.domain.letters.pdf import LetterPdf, LetterSection, render_letter_pdf
from pipeline.domain.rendering import render
from pipeline.domain.rendering.address_names import NAMES
from pipeline.domain.rendering.placeholders import normalised_values

LETTER_TIMEZONE = ZoneInfo("Europe/Amsterdam")  # the date printed on a letter is the Dutch date


def preview_address(language: str) -> list[str]:
    """Where a preview without an address puts it: the first three lines as placeholders, named in the
    reader's language as the send form and the spreadsheet's columns name them."""
    return [f"(({name}))" for name in NAMES.get(language, NAMES[ENGLISH])[:3]]


def letter_date(created_at: datetime.datetime) -> datetime.date:
    """The Dutch calendar date of a naive-UTC timestamp (a letter sent at 00:30 CET is dated that day)."""
    return created_at.replace(tzinfo=datetime.UTC).astimezone(LETTER_TIMEZONE).date()


def compose_letter(*, appearance: Appearance, version: TemplateVersion | None, values: dict, address_lines: list[str],
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


def render_notification_letter(notification: Notification) -> LetterPdf:
    """The letter as the service's recipients get it."""
    version = TemplateVersion.get_or_none((TemplateVersion.template == notification.template_id)
                                          & (TemplateVersion.version == notification.template_version))
    return compose_letter(
        appearance=appearance_of(notification.service_id), version=version,
        values=notification.personalisation or {},
        address_lines=(notification.address or {}).get("lines") or notification.to.splitlines(),
        subject=notification.subject or "", body=notification.body or "",
        contact_block=notification.reply_to_text, date=letter_date(notification.created_at),
        notification_id=str(notification.id), reference=notification.reference, sender=notification.service.name,
    )


def preview_letter(version: TemplateVersion, values: dict, *, appearance: Appearance, sender: str,
                   now: datetime.datetime, reader_language: str = DUTCH) -> LetterPdf:
    """A template letter as it would print today; missing values stay visible as ((placeholders)), a
    missing address as the placeholders of reader_language (the language of the page showing it)."""
    by_key = normalised_values(values)
    lines = [str(by_key[f"addressline{n}"]) for n in range(1, 8) if by_key.get(f"addressline{n}")]
    main = render("letter", version.body, version.subject, values)
    block = contact_block_of(version)
    contact = render("letter", block, None, values).body if block else None
    return compose_letter(
        appearance=appearance, version=version, values=values,
        address_lines=lines or preview_address(reader_language),
        subject=main.subject or "", body=main.body, contact_block=contact, date=letter_date(now),
        notification_id=None, reference=None, sender=sender,
    )
