"""A template letter's PDF from the stored rows: a notification's, as its recipient gets it, and a
template's preview, as it would print today. The rows are read here; what goes on the pages is the
vocabulary's pure compose_letter (pipeline/domain/letters/compose.py), the same for both
(docs/architecture.md#rendering-is-pure)."""
from __future__ import annotations

import datetime

from models.appearance import Appearance, appearance_of
from models.notification import Notification
from models.template import TemplateVersion, contact_block_of
from pipeline.domain.i18n import DUTCH
from pipeline.domain.letters.compose import compose_letter, letter_date, preview_address
from pipeline.domain.letters.pdf import LetterPdf
from pipeline.domain.rendering import render
from pipeline.domain.rendering.placeholders import normalised_values


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
