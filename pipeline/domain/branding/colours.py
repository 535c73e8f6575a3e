"""Brand colours and the text colour that stays readable on them (WCAG 2 contrast)."""
from __future__ import annotations

import re

HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
DARK_TEXT, LIGHT_TEXT = "#0b0c0c", "#ffffff"
AA_CONTRAST = 4.5  # WCAG 2 AA for normal text


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours, 1 to 21."""
    lighter, darker = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def text_colour_on(background: str) -> str:
    """Near-black or white, whichever contrasts more with the brand colour."""
    return max((DARK_TEXT, LIGHT_TEXT), key=lambda text: contrast(text, background))
