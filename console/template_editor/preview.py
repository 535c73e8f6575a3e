"""What a template looks like to its recipients, made by the same pipeline code that sends it: an email's
HTML, a text message's length in characters and fragments, a letter's PDF pages as images. Placeholders
stay as written, ((name)), and are highlighted; so does optional content, ((name??text)), in an email or
a text message, which the renderer would otherwise drop for want of a value. A letter's pages show its
optional content as printed for a "yes" (its fonts have no mark for brackets kept as written)."""
from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field

from flask_babel import get_locale
from markupsafe import Markup, escape

from console import security_headers
from models.appearance import appearance_of
from models.db import utcnow
from models.service import LetterContact, Service
from models.template import Template, TemplateVersion
from pipeline.domain.cost import SMS_CHARACTER_LIMIT, non_gsm7_characters, sms_fragments
from pipeline.domain.letters.page_images import page_images
from pipeline.domain.letters.pdf import LetterLayoutError
from pipeline.domain.rendering import placeholder_names, render
from pipeline.domain.rendering.address_names import NAMES, spec_name
from pipeline.stages.email_brand import brand_view
from pipeline.stages.letters.template_letters import preview_letter

_PLACEHOLDER = re.compile(r"\(\([^()]+\)\)")
_TAG = re.compile(r"(<[^>]*>)")
_OPTIONAL = re.compile(r"\(\(([^()]*\?\?[^()]*)\)\)")
# Private-use characters stand in for an optional placeholder's brackets while the text is rendered:
# nothing the renderer changes, and no template contains them.
_OPEN, _CLOSE = "\ue000", "\ue001"


def _keep_optional(text: str) -> str:
    return _OPTIONAL.sub(lambda m: f"{_OPEN}{m.group(1)}{_CLOSE}", text)


def _as_written(text: str) -> str:
    return text.replace(_OPEN, "((").replace(_CLOSE, "))")


def _shown_optional(*texts: str) -> dict[str, str]:
    """A "yes" for each name used only to show optional content, so that its text is on the page; a
    name also used as a placeholder of its own stays visible as ((name))."""
    conditions = {m.group(1).split("??", 1)[0].strip() for text in texts for m in _OPTIONAL.finditer(text)}
    plain = {name for text in texts for name in _PLACEHOLDER.findall(text) if "??" not in name}
    return {name: "yes" for name in conditions if f"(({name}))" not in plain}


@dataclass
class Preview:
    template_type: str
    placeholders: list[str]
    address_placeholders: list[str] = field(default_factory=list)  # a letter's, filled from its address
    address_names: list[str] = field(default_factory=list)  # a letter's address lines, in the page's language
    email_html: str | None = None
    sms_body: Markup | None = None
    sms_characters: int = 0
    sms_fragments: int = 0
    sms_unicode: list[str] = field(default_factory=list)
    sms_too_long: bool = False
    letter_pages: list[str] = field(default_factory=list)  # data: URLs of PNG images
    letter_problem: str | None = None


def highlighted(text: str) -> Markup:
    """Plain text, escaped, with each ((placeholder)) marked."""
    parts = _PLACEHOLDER.split(text)
    names = _PLACEHOLDER.findall(text)
    out = [escape(parts[0])]
    for name, rest in zip(names, parts[1:], strict=True):
        out += [Markup('<mark class="notify-placeholder">'), escape(name), Markup("</mark>"), escape(rest)]
    return Markup("").join(out)


def _highlight_html(html: str) -> str:
    # Only in text between tags: a placeholder inside an attribute (a link's address) stays as it is.
    return "".join(part if part.startswith("<") else _PLACEHOLDER.sub(
        lambda m: f'<mark style="background:#fff2a8">{m.group(0)}</mark>', part) for part in _TAG.split(html))


def _letter_version(service: Service, subject: str, body: str, contact: LetterContact | None) -> TemplateVersion:
    # An unsaved version: the preview shows the text being typed, not what is stored.
    return TemplateVersion(template=Template(service=service, template_type="letter"), version=0, name="",
                           subject=subject, body=body, letter_contact=contact,
                           letter_contact_block=contact.contact_block if contact else None)


def make_preview(service: Service, template_type: str, *, subject: str | None, body: str,
                 letter_contact: LetterContact | None = None) -> Preview:
    names = placeholder_names(subject or "", body)
    preview = Preview(template_type, names)
    language = str(get_locale())
    if template_type == "letter":
        preview.placeholders = [name for name in names if spec_name(name) is None]
        preview.address_placeholders = [name for name in names if spec_name(name) is not None]
        preview.address_names = list(NAMES.get(language, NAMES["en"]))
    if template_type == "email":
        appearance = appearance_of(service.id)
        html = render("email", _keep_optional(body), _keep_optional(subject or ""), {},
                      language=appearance.language, service_name=service.name,
                      brand=brand_view(appearance.email_brand)).html
        preview.email_html = _highlight_html(_as_written(html or ""))
        security_headers.shows_email_preview()
    elif template_type == "sms":
        text = _as_written(render("sms", _keep_optional(body), None, {}).body)
        counted = sms_fragments(text)
        preview.sms_body = highlighted(text)
        preview.sms_characters, preview.sms_fragments = counted.characters, counted.fragments
        preview.sms_unicode = non_gsm7_characters(text)
        preview.sms_too_long = counted.characters > SMS_CHARACTER_LIMIT
    else:
        version = _letter_version(service, subject or "", body, letter_contact)
        try:
            pdf = preview_letter(version, _shown_optional(subject or "", body), appearance=appearance_of(service.id),
                                 sender=service.name, now=utcnow(), reader_language=language)
        except LetterLayoutError as error:
            preview.letter_problem = str(error)
        else:
            preview.letter_pages = ["data:image/png;base64," + base64.b64encode(png).decode()
                                    for png in page_images(pdf.data)]
    return preview
