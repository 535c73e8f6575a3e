"""The jinja2 layout that wraps an email body's HTML."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

EMAIL_LANG = "en"

_ENV = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=StrictUndefined,
)


def email_html(content_html: str, subject: str, *, lang: str = EMAIL_LANG) -> str:
    """A complete HTML document; ``content_html`` must already be safe (it is not escaped again)."""
    return _ENV.get_template("email.html").render(content=Markup(content_html), subject=subject, lang=lang)
