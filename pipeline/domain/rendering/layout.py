"""The jinja2 layout that wraps an email body's HTML, in the service's language and brand."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from pipeline.domain.branding.colours import DARK_TEXT, text_colour_on
from pipeline.domain.i18n import DEFAULT_LANGUAGE, translator

LOGO_MAX_HEIGHT = 60  # CSS pixels in the email header
LOGO_MAX_WIDTH = 300

_ENV = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=StrictUndefined,
)


@dataclass(frozen=True)
class EmailBrandView:
    """What the header shows of a brand; built from the stored brand by pipeline.stages.email_brand."""

    name: str
    colour: str | None
    logo_url: str | None
    logo_width: int  # pixels as the logo is shown, scaled down to fit the header
    logo_height: int
    beside_service_name: bool  # "both": logo and service name; "org": the brand replaces it


def logo_display_size(width: int, height: int) -> tuple[int, int]:
    scale = min(1.0, LOGO_MAX_HEIGHT / height, LOGO_MAX_WIDTH / width)
    return max(1, round(width * scale)), max(1, round(height * scale))


def email_html(content_html: str, subject: str, *, lang: str = DEFAULT_LANGUAGE, service_name: str | None = None,
               brand: EmailBrandView | None = None) -> str:
    """A complete HTML document; ``content_html`` must already be safe (it is not escaped again)."""
    colour = brand.colour if brand and brand.colour else None
    return _ENV.get_template("email.html").render(
        content=Markup(content_html), subject=subject, service_name=service_name, brand=brand,
        band=colour, band_text=text_colour_on(colour) if colour else DARK_TEXT,
        **translator(lang).jinja_context(),
    )
