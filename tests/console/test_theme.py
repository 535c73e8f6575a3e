"""The console's look is the NL Design System's published component CSS (vendored with its licence) styled by
design tokens: Notify's own by default, an organisation's own theme by CONSOLE_THEME_CSS and CONSOLE_THEME_CLASS.
Tried with a second, published token set (the NL Design System's example theme, "voorbeeld"), photographed
into docs/look/ with LOOK_UPDATE_DOCS=1; axe-core finds nothing either way."""
from __future__ import annotations

import dataclasses
import re
import threading

import pytest

import config
from console import vendor_css
from models.user import SERVICE_PERMISSIONS
from tests.console.browser import assert_accessible, sign_in
from tests.console.users import create_console_user
from tests.console.walk_stops import DOCS, WIDE, WRITE, _photograph

VOORBEELD = vendor_css.VENDOR / "voorbeeld" / "theme.css"
NOTIFY_PRIMARY = "rgb(21, 66, 115)"  # notify-theme.css's --notify-color-primary, #154273


def _app(**theme):
    from console import create_console_app

    before = config.get_settings()
    config._settings = dataclasses.replace(before, **theme)
    try:
        return create_console_app()
    finally:
        config._settings = before


def test_the_vendored_css_is_the_pinned_packages_with_their_licence():
    assert vendor_css.check() == []
    css = (vendor_css.VENDOR / "utrecht" / "component-library.css").read_text()
    assert css.lstrip().startswith("/**\n * @license EUPL-1.2")
    assert "EUROPEAN UNION PUBLIC LICENCE v. 1.2" in (vendor_css.VENDOR / "utrecht" / "LICENSE.md").read_text()
    # The components are the package's; the console's own stylesheet writes none of their rules.
    own = (vendor_css.VENDOR.parent / "console.css").read_text()
    assert not re.search(r"^\.utrecht-button--primary-action\s*\{", own, re.M)


def test_pages_load_the_components_then_the_tokens_and_an_organisations_theme_when_set(tmp_path):
    plain = _app().test_client().get("/sign-in").get_data(as_text=True)
    sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)">', plain)
    assert sheets == ["/static/vendor/utrecht/component-library.css", "/static/notify-theme.css", "/static/console.css"]
    assert '<body class="notify-theme utrecht-document">' in plain

    theme = tmp_path / "gemeente.css"
    theme.write_text(".gemeente-theme { --utrecht-button-primary-action-background-color: #00643c; }\n")
    client = _app(console_theme_css=theme, console_theme_class="gemeente-theme").test_client()
    themed = client.get("/sign-in").get_data(as_text=True)
    assert re.findall(r'<link rel="stylesheet" href="([^"]+)">', themed)[2] == "/theme.css"
    assert '<body class="notify-theme gemeente-theme utrecht-document">' in themed
    served = client.get("/theme.css")
    assert served.status_code == 200 and served.mimetype == "text/css" and b"#00643c" in served.data
    assert "Set-Cookie" not in served.headers

    # A class that is not a class name is not written into the page.
    odd = _app(console_theme_css=theme, console_theme_class='x" onload="alert(1)').test_client()
    assert '<body class="notify-theme utrecht-document">' in odd.get("/sign-in").get_data(as_text=True)


@pytest.fixture
def themed_server():
    from werkzeug.serving import make_server

    app = _app(console_theme_css=VOORBEELD, console_theme_class="voorbeeld-theme")
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_another_published_theme_restyles_the_console_and_stays_accessible(browser, themed_server, service):
    member = create_console_user(service=service, permissions=list(SERVICE_PERMISSIONS))
    context = browser.new_context(base_url=themed_server, viewport={"width": WIDE, "height": 800},
                                  device_scale_factor=1)
    page = context.new_page()
    try:
        sign_in(page, member)
        page.goto(f"/services/{service.id}/users/invite")
        button = page.locator("main form button[type=submit]")
        colour = button.evaluate("b => getComputedStyle(b).backgroundColor")
        assert colour != NOTIFY_PRIMARY, colour  # the theme's token, not Notify's
        assert_accessible(page)
        if WRITE:
            _photograph(page, DOCS / "theme-voorbeeld-1280.png", 1100)
    finally:
        context.close()
