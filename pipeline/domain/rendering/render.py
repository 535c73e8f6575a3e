"""Filling a template for one channel: plain-text body, subject and, for email, HTML."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipeline.domain.i18n import DEFAULT_LANGUAGE

from .layout import EmailBrandView, email_html
from .markdown import markdown_to_html
from .placeholders import fill, normalise_key, normalised_values
from .sanitise import sanitise_value

TEMPLATE_TYPES = ("sms", "email", "letter")

_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
_ODD_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


@dataclass(frozen=True)
class Rendered:
    body: str  # plain text with placeholders filled; never HTML; template line endings kept
    subject: str | None  # email subject / letter heading; None for sms
    html: str | None  # complete HTML email; None for sms and letter


def _scalar(value: object) -> str:
    return "" if value is None else str(value)


def join_with_and(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def format_value(value: object, *, markdown: bool, sanitise: bool = False, newline: str = "\n") -> str:
    """A value as text. A list becomes Markdown bullets (``markdown``) or 'a, b and c'."""
    if isinstance(value, (list, tuple)):
        items = [_scalar(item) for item in value]
        items = [item for item in items if item.strip()]
        if sanitise:
            items = [sanitise_value(item) for item in items]
        if not markdown:
            return join_with_and(items)
        if not items:
            return ""
        # Blank lines around the bullets so Markdown sees a list, not part of a paragraph.
        return newline * 2 + newline.join("* " + item for item in items) + newline * 2
    text = _scalar(value)
    return sanitise_value(text) if sanitise else text


def _keep_outer_whitespace(filled: str, template: str) -> str:
    # Whitespace a value adds at either end (a list's blank lines) is trimmed; the template's own is kept.
    if not template.strip():
        return template
    start = len(template) - len(template.lstrip())
    end = len(template.rstrip())
    return template[:start] + filled.strip() + template[end:]


def normalise_sms(text: str) -> str:
    """Zero-width characters removed, unusual spaces made plain, outer whitespace stripped."""
    return _ODD_SPACES.sub(" ", _ZERO_WIDTH.sub("", text)).strip()


def render_subject(subject: str, values: Mapping[str, object]) -> str:
    filled = fill(subject, values, lambda key, value: format_value(value, markdown=False))
    return " ".join(filled.split())


def render(
    template_type: str,
    body: str,
    subject: str | None,
    values: Mapping[str, object] | None,
    *,
    sanitise_keys: Iterable[str] = (),
    language: str = DEFAULT_LANGUAGE,
    service_name: str | None = None,
    brand: EmailBrandView | None = None,
) -> Rendered:
    """Fill ``body`` (and ``subject``) with ``values`` for one channel.

    A placeholder with no value at all is left as written (``((name))``); a value of None fills
    it with nothing. ``sanitise_keys`` apply to email and letter bodies only, where Markdown is
    interpreted; SMS bodies and subjects are never Markdown. ``language``, ``service_name`` and
    ``brand`` dress the HTML email (its ``lang``, header and footer).
    """
    if template_type not in TEMPLATE_TYPES:
        raise ValueError(f"unknown template type: {template_type!r}")
    by_key = normalised_values(values)
    body = body or ""

    if template_type == "sms":
        filled = fill(body, by_key, lambda key, value: format_value(value, markdown=False))
        return Rendered(body=normalise_sms(filled), subject=None, html=None)

    plain = {normalise_key(key) for key in sanitise_keys}
    newline = "\r\n" if "\r\n" in body else "\n"
    filled = fill(
        body,
        by_key,
        lambda key, value: format_value(value, markdown=True, sanitise=key in plain, newline=newline),
    )
    filled = _keep_outer_whitespace(filled, body)
    rendered_subject = render_subject(subject or "", by_key)
    html = (email_html(markdown_to_html(filled), rendered_subject, lang=language, service_name=service_name,
                       brand=brand) if template_type == "email" else None)
    return Rendered(body=filled, subject=rendered_subject, html=html)
