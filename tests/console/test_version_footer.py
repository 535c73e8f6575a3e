"""Every console page names the release in its footer (version.py), signed in or not, in either language."""
from __future__ import annotations

import pytest

from tests.console.service_pages import signed_in_client
from tests.console.users import create_console_user
from version import __version__


def _footer(html: str) -> str:
    assert html.count("<footer") == 1, html[:500]
    return html.split("<footer", 1)[1].split("</footer>", 1)[0]


@pytest.mark.parametrize("language", ["nl", "en"])
def test_the_footer_names_the_release_on_pages_signed_in_or_not(console_app, console_client, language):
    member = signed_in_client(console_app, create_console_user().user)
    pages = [(console_client, "/sign-in", 200), (console_client, "/trial-mode", 200),
             (console_client, "/no-such-page", 404), (member, "/services", 200), (member, "/account", 200)]
    for client, path, status in pages:
        client.get(f"/language/{language}")
        response = client.get(path)
        assert response.status_code == status, path
        assert f"Notify NL {__version__}" in _footer(response.get_data(as_text=True)), path
