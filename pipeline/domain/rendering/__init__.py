"""Pure, channel-specific template rendering: placeholders, Markdown, HTML email, sanitising."""

from .placeholders import missing_personalisation, normalise_key, personalisation_map, placeholder_names
from .render import Rendered, render
from .sanitise import sanitise_value, sanitise_values, sanitised_content

__all__ = [
    "Rendered",
    "missing_personalisation",
    "normalise_key",
    "personalisation_map",
    "placeholder_names",
    "render",
    "sanitise_value",
    "sanitise_values",
    "sanitised_content",
]
