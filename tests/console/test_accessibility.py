"""axe-core (WCAG 2.1 A and AA) on every page of the accounts area, in Dutch and in English, and the
trial-mode page that the API's error texts link to, signed in or not. The flows' own tests check the
pages with errors and the pages between steps."""
from __future__ import annotations

import pytest

from tests.console.browser import assert_accessible, sign_in

SIGNED_OUT = ["/sign-in", "/forgot-password", "/trial-mode", "/invitation/unknown", "/reset-password/unknown",
              "/no-such-page", "/account/email/confirm/unknown"]
SIGNED_IN = ["/services", "/account", "/trial-mode", "/two-factor/set-up", "/two-factor/set-up/email",
             "/account/name", "/account/email", "/account/mobile", "/account/password"]


@pytest.mark.parametrize("language", ["nl", "en"])
def test_every_page_signed_out_passes_axe(page, language):
    page.goto(f"/language/{language}?next=/sign-in")
    for path in SIGNED_OUT:
        page.goto(path)
        assert page.locator("html").get_attribute("lang") == language
        assert_accessible(page)


@pytest.mark.parametrize("language", ["nl", "en"])
def test_every_page_signed_in_passes_axe(page, platform_admin, service, language):
    sign_in(page, platform_admin)
    page.goto(f"/language/{language}?next=/services")
    for path in SIGNED_IN:
        page.goto(path)
        assert_accessible(page)
    page.goto("/two-factor/set-up")
    page.check("#auth_type-0")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/two-factor/set-up/app")
    assert_accessible(page)


def test_the_trial_mode_page_answers_anyone(console_client):
    page = console_client.get("/trial-mode")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    # Dutch sentences; the API's own English answers apart, as code marked English, for developers.
    assert ("<li>Versturen naar iemand anders. De console meldt dat bij de ontvanger; de API weigert het "
            "bericht.</li>") in text
    assert "Wat de API dan antwoordt (status 400, voor ontwikkelaars):" in text
    assert '<li><code lang="en">Cannot send to this recipient when service is in trial mode</code></li>' in text
    assert "antwoordt <q" not in text and "antwoordt Cannot" not in text
    assert "Hoe u live gaat" in text


@pytest.mark.parametrize("template,status", [("errors/403.html", 403), ("errors/csrf.html", 400),
                                             ("errors/429.html", 429), ("errors/413.html", 413)])
def test_error_pages_pass_axe(page, console_server, console_app, template, status):
    from flask import render_template

    with console_app.test_request_context("/"):
        console_app.preprocess_request()
        html = render_template(template, path="/")
    page.goto("/trial-mode")  # the page's origin, so the stylesheet loads as it would
    page.set_content(html.replace('href="/static/', f'href="{console_server}/static/'))
    page.wait_for_load_state("load")
    assert_accessible(page)


def test_the_check_finds_a_violation(page):
    page.set_content('<html lang="nl"><head><title>x</title></head>'
                     '<body><main><input type="text"></main></body></html>')
    with pytest.raises(AssertionError, match="label"):
        assert_accessible(page)


@pytest.mark.parametrize("language", ["nl", "en"])
def test_the_api_documentation_the_console_links_to_passes_axe(browser, live_server, page, language):
    """The footer's link leads to the API's reference page in the page's language; it passes axe too."""
    page.goto(f"/language/{language}?next=/trial-mode")
    name = {"nl": "API-documentatie", "en": "API documentation"}[language]
    link = page.locator("footer").get_by_role("link", name=name)
    assert link.get_attribute("href") == f"{live_server}/docs/{language}"
    docs = browser.new_page()
    try:
        docs.goto(f"{live_server}/docs/{language}")
        assert docs.locator("html").get_attribute("lang") == language
        assert_accessible(docs)
    finally:
        docs.close()
