"""What a service's recipients see: its language and brands, and previews of its emails and letters.

A service speaks Dutch ("nl", the default) or English ("en") and points at an email brand and a letter
brand (shared by every service that points at them). Previews are what a recipient would get: the
email's HTML document, or the letter's PDF.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from core.brands import BrandT, find_brand
from core.organisations import offered_brand_ids
from core.services import find_service
from core.templates import find_template
from models import audit
from models.appearance import Appearance, EmailBrand, LetterBrand, appearance_of, set_appearance
from models.db import database, utcnow
from pipeline.domain.errors import BadRequestError, NoResultFound, ValidationError
from pipeline.domain.i18n import N_, translator
from pipeline.domain.letters.compose import letter_date
from pipeline.domain.letters.letterhead import LetterLogo
from pipeline.domain.letters.pdf import LetterLayoutError, render_letter_pdf
from pipeline.domain.rendering import render
from pipeline.stages.email_brand import brand_view
from pipeline.stages.letters.template_letters import preview_letter

SAMPLE_SUBJECT = N_("Example message")
SAMPLE_BODY = N_("This is what your recipients will see.")
SAMPLE_ADDRESS = ["A. Voorbeeld", "Voorbeeldstraat 1", "1234 AB Voorbeeldstad"]
_FIELDS = frozenset(("language", "email_brand_id", "letter_brand_id"))


@dataclass(frozen=True)
class Preview:
    """A rendered document and its media type."""

    content: str | bytes
    media_type: str


def appearance_values(appearance: Appearance) -> dict[str, str | None]:
    """The appearance as plain values: what the history records (and the admin API answers)."""
    return {"language": appearance.language,
            "email_brand_id": str(appearance.email_brand.id) if appearance.email_brand else None,
            "letter_brand_id": str(appearance.letter_brand.id) if appearance.letter_brand else None}


def _brand_or_none(model: type[BrandT], brand_id: str | None, field: str) -> BrandT | None:
    if brand_id is None:
        return None
    try:
        return find_brand(model, brand_id)
    except NoResultFound:
        raise ValidationError(f"{field} is not {'an email' if model is EmailBrand else 'a letter'} brand") from None


NOT_OFFERED = "{field} is not a brand of the service's organisation"


def _offered(service_id: object, values: dict[str, Any]) -> None:
    """A service in an organisation chooses among the brands the organisation offers."""
    offered = offered_brand_ids(service_id)
    if offered is None:
        return
    for field, allowed in zip(("email_brand", "letter_brand"), offered, strict=True):
        brand = values.get(field)
        if brand is not None and brand.id not in allowed:
            raise ValidationError(NOT_OFFERED.format(field=f"{field}_id"))


def change_appearance(service_id: str, **changes: str | None) -> Appearance:
    """Set what is given of language, email_brand_id and letter_brand_id (None: no brand)."""
    unknown = set(changes) - _FIELDS
    if unknown:
        raise TypeError(f"not an appearance field: {', '.join(sorted(unknown))}")
    service = find_service(service_id)
    values: dict[str, Any] = {}
    if "language" in changes:
        values["language"] = changes["language"]
    if "email_brand_id" in changes:
        values["email_brand"] = _brand_or_none(EmailBrand, changes["email_brand_id"], "email_brand_id")
    if "letter_brand_id" in changes:
        values["letter_brand"] = _brand_or_none(LetterBrand, changes["letter_brand_id"], "letter_brand_id")
    _offered(service.id, values)
    before = appearance_values(appearance_of(service.id))
    with database.atomic():
        set_appearance(service, **values)
        after = appearance_of(service.id)
        old, new = audit.differences(before, appearance_values(after))
        if new:
            audit.record(service.id, "service.appearance", before=old, after=new)
    return after


def preview_template(service_id: str, template_id: str, personalisation: dict[str, Any]) -> Preview:
    """An email template as its HTML document, a letter template as its PDF, in the service's
    language and brand."""
    service = find_service(service_id)
    version = find_template(service, template_id)
    appearance = appearance_of(service.id)
    kind = version.template.template_type
    if kind == "email":
        html = render("email", version.body, version.subject, personalisation, language=appearance.language,
                      service_name=service.name, brand=brand_view(appearance.email_brand)).html
        return Preview(cast(str, html), "text/html")  # an email always renders its HTML
    if kind == "letter":
        try:
            pdf = preview_letter(version, personalisation, appearance=appearance, sender=service.name, now=utcnow())
        except LetterLayoutError as error:
            raise BadRequestError(str(error)) from None
        return Preview(pdf.data, "application/pdf")
    raise BadRequestError("Only email and letter templates have a preview here")


def sample_email(language: str, brand: EmailBrand | None, service_name: str) -> str:
    """A short sample email in the language and brand, for choosing them."""
    words = translator(language)
    html = render("email", words.gettext(SAMPLE_BODY), words.gettext(SAMPLE_SUBJECT), {}, language=words.language,
                  service_name=service_name, brand=brand_view(brand)).html
    return cast(str, html)  # an email always renders its HTML


def sample_letter(language: str, brand: LetterBrand | None, sender: str) -> bytes:
    """A short sample letter in the language, with the brand's logo."""
    words = translator(language)
    logo = LetterLogo(bytes(brand.logo_png), brand.logo_width, brand.logo_height) if brand else None
    return render_letter_pdf(
        address_lines=SAMPLE_ADDRESS, subject=words.gettext(SAMPLE_SUBJECT), body=words.gettext(SAMPLE_BODY),
        contact_block=sender, date=letter_date(utcnow()), language=words.language, logo=logo, sender=sender,
    ).data
