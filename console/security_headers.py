"""The security headers of every console response: a Content-Security-Policy that runs only the
console's own scripts and styles, and HSTS when the console is served over https.

An email preview shown in a sandboxed `srcdoc` frame inherits the page's policy, and an email is
styled inline (mail clients read nothing else), so the page that shows one allows inline styles and
the API's images (a brand's logo) for that response only; scripts stay the console's own files everywhere.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import g

from config import get_settings

_COMMON = ("default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'self'",
           "form-action 'self'", "frame-ancestors 'none'")
POLICY = "; ".join((*_COMMON, "style-src 'self'", "img-src 'self' data:"))
HSTS = "max-age=31536000; includeSubDomains"


def email_preview_policy() -> str:
    """An email's brand logo is served by the API (BASE_URL), a different origin from the console."""
    parts = urlsplit(get_settings().base_url)
    return "; ".join((*_COMMON, "style-src 'self' 'unsafe-inline'",
                      f"img-src 'self' data: {parts.scheme}://{parts.netloc}"))


def shows_email_preview() -> None:
    """Called by a view whose page shows an email in a srcdoc frame (see the module's docstring)."""
    g.shows_email_preview = True


def add(response: Any, *, https: bool) -> Any:
    """Set the headers a view did not set itself (a framed preview sets its own policy)."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", email_preview_policy() if g.get("shows_email_preview") else POLICY)
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "same-origin")
    if https:
        headers.setdefault("Strict-Transport-Security", HSTS)
    if response.mimetype == "text/html":
        # Pages carry codes and tokens: never keep them in a shared or back-button cache.
        headers.setdefault("Cache-Control", "no-store")
    return response
