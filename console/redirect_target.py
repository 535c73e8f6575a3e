"""Where a redirect taken from input (`next`) may go: a path on this site, or nowhere.

Browsers repair what they are given before following it: they drop tabs and newlines anywhere, read
a backslash as a slash, and some decode percent-escapes a server or proxy left in place, so
`/%09/evil.example` and `/\\evil.example` both become `//evil.example`, another site. Rather than
predict each repair, a target is refused when any of its decodings holds a character a browser might
repair, or reads as anything but a path that starts with one slash.
"""
from __future__ import annotations

import unicodedata
from urllib.parse import unquote, urlsplit

# More layers of percent-encoding than this are no path a page of ours links to.
MAX_DECODINGS = 3


def _plain_path(text: str) -> bool:
    if not text.startswith("/") or text.startswith("//") or "\\" in text:
        return False
    # Tabs, newlines and every other control or invisible format character (Unicode Cc, Cf).
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in text):
        return False
    parts = urlsplit(text)
    return not parts.scheme and not parts.netloc


def is_same_site(target: str | None) -> bool:
    """True for a path on this site as the browser will read it, however it is encoded."""
    if not target:
        return False
    text = target
    for _ in range(MAX_DECODINGS + 1):
        if not _plain_path(text):
            return False
        decoded = unquote(text)
        if decoded == text:
            return True
        text = decoded
    return False


def safe_target(target: str | None, default: str) -> str:
    """The target when it is a path on this site, else the default page."""
    return target if target and is_same_site(target) else default
