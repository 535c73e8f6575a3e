"""What a template looks like to its recipients, made by the same pipeline code that sends it: an email's
HTML, a text message's length in characters and fragments, a letter's PDF pages as images. Placeholders
stay as written, ((name)), and are highlighted; so does optional content, ((name??text)), in an email or
a text message, which the renderer would otherwise drop for want of a value."""
from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from console import security_headers
from models.appearance import appearance_of
from models.db import utcnow
from models.service import LetterContact, Service
from models.template import Template, TemplateVersion
from pipeline.branding.email import brand_view
from pipeline.cost import SMS_CHARACTER_LIMIT, non_gsm7_characters, sms_fragments
from pipeline.letters.compose import preview_letter
from pipeline.letters.page_images import page_images
from pipeline.letters.pdf import LetterLayoutError
from pipeline.rendering import placeholder_names, render

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


@dataclass
class Preview:
    template_type: str
    placeholders: list[str]
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
    preview = Preview(template_type, placeholder_names(subject or "", body))
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
            pdf = preview_letter(version, {}, appearance=appearance_of(service.id), sender=service.name, now=utcnow())
        except LetterLayoutError as error:
            preview.letter_problem = str(error)
        else:
            preview.letter_pages = ["data:image/png;base64," + base64.b64encode(png).decode()
                                    for png in page_images(pdf.data)]
    return preview
