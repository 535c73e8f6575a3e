"""Helpers of the service pages' tests: a test client signed in as a console user (no browser), and
the CSRF token its forms carry."""
from __future__ import annotations

import html
import re

from console.auth import SESSION_TOKEN
from models.user import User, UserSession, new_token


def signed_in_client(console_app, user: User):
    """A Flask test client whose session is a signed-in session of `user` (second factor done)."""
    client = console_app.test_client()
    token, hashed = new_token()
    UserSession.create(user=user, token_hash=hashed)
    with client.session_transaction() as session:
        session[SESSION_TOKEN] = token
    return client


def csrf_token(client, path: str = "/services/new") -> str:
    """The session's CSRF token, read off a form page as a browser would."""
    html = client.get(path).get_data(as_text=True)
    found = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', html) or re.search(
        r'value="([^"]+)"[^>]*name="csrf_token"', html)
    assert found, html[:500]
    return found.group(1)


def amsterdam(value, seconds: bool = False, locale: str = "nl") -> str:
    """A stored UTC time as the console shows it for a service in Europe/Amsterdam: "26 nov 2026 07:00 CET"."""
    import datetime
    import zoneinfo

    from babel.dates import format_datetime

    shown = value.replace(tzinfo=datetime.UTC).astimezone(zoneinfo.ZoneInfo("Europe/Amsterdam"))
    pattern = "d MMM y HH:mm:ss" if seconds else "d MMM y HH:mm"
    return f"{format_datetime(shown, pattern, locale=locale)} {shown.tzname()}"


def send_one_url(service, template) -> str:
    """The send-one form of a template."""
    return f"/services/{service.id}/send/{template.id}/one"


def page_text(response) -> str:
    """A response's page as the reader sees its words: tags dropped, spaces folded, entities read."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))
