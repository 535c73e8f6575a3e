"""Every console response carries a Content-Security-Policy that runs only the console's own files;
a page showing an email preview allows inline styles for it; HSTS is sent when the console is served
over https. In a browser, the pages with scripts and previews work under the policy and break none of it."""
from __future__ import annotations

import dataclasses

import pytest

import config
from models.appearance import EmailBrand, ServiceAppearance
from tests.console.service_pages import signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_sample_template, create_service
from tests.pipeline.test_logos import png

POLICY = ("default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
          "frame-ancestors 'none'; style-src 'self'; img-src 'self' data:")
EMAIL_PREVIEW_POLICY = ("default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'self'; "
                        "form-action 'self'; frame-ancestors 'none'; style-src 'self' 'unsafe-inline'; "
                        "img-src 'self' data: {api}")  # the API serves a brand's logo
HSTS = "max-age=31536000; includeSubDomains"


@pytest.fixture
def member_client(console_app):
    service = create_service()
    member = create_console_user(service=service, permissions=["view_activity", "send_messages",
                                                               "manage_templates", "manage_service"])
    return signed_in_client(console_app, member.user), service


@pytest.mark.parametrize("path", ["/sign-in", "/forgot-password", "/trial-mode", "/no-such-page",
                                  "/static/console.css", "/reset-password/unknown"])
def test_pages_signed_out_carry_the_policy(console_client, path):
    response = console_client.get(path)
    assert response.headers["Content-Security-Policy"] == POLICY
    assert response.headers["X-Frame-Options"] == "DENY"


def test_pages_signed_in_carry_the_policy(member_client):
    client, service = member_client
    sms = create_sample_template(service=service)
    for path in ("/services", "/account", f"/services/{service.id}", f"/services/{service.id}/templates",
                 f"/services/{service.id}/templates/{sms.id}", f"/services/{service.id}/service-settings/appearance"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["Content-Security-Policy"] == POLICY, path


def test_a_page_showing_an_email_preview_allows_its_inline_styles_only(member_client):
    client, service = member_client
    email = create_sample_template(service=service, template_type="email")
    for path in (f"/services/{service.id}/templates/{email.id}", f"/services/{service.id}/templates/{email.id}/edit"):
        response = client.get(path)
        assert response.status_code == 200 and "srcdoc=" in response.get_data(as_text=True), path
        assert response.headers["Content-Security-Policy"] == EMAIL_PREVIEW_POLICY.format(
            api=config.get_settings().base_url), path


def test_the_appearance_preview_may_be_framed_by_the_console_only(member_client):
    client, service = member_client
    response = client.get(f"/services/{service.id}/service-settings/appearance/email-preview")
    assert response.status_code == 200
    assert response.headers["Content-Security-Policy"] == (
        "default-src 'none'; img-src * data:; style-src 'unsafe-inline'; frame-ancestors 'self'")
    assert response.headers["X-Frame-Options"] == "SAMEORIGIN"


def _app_served_at(admin_url: str):
    from console import create_console_app

    before = config.get_settings()
    config._settings = dataclasses.replace(before, admin_url=admin_url)
    try:
        return create_console_app()
    finally:
        config._settings = before


def test_hsts_is_sent_only_when_the_console_is_served_over_https():
    over_https = _app_served_at("https://console.example.gov.nl").test_client()
    over_http = _app_served_at("http://127.0.0.1:6012").test_client()
    for path in ("/sign-in", "/no-such-page", "/static/console.css"):
        response = over_https.get(path)
        assert response.headers["Strict-Transport-Security"] == HSTS, path
        assert response.headers["Content-Security-Policy"] == POLICY, path
        response = over_http.get(path)
        assert "Strict-Transport-Security" not in response.headers, path
        assert response.headers["Content-Security-Policy"] == POLICY, path


def test_the_email_previews_render_under_the_policy(signed_in_member, service, live_server):
    """The page fixture fails the test on any CSP violation; here the previews must also show, with
    their inline styles and the brand's logo the API serves."""
    brand = EmailBrand.create(name="Gemeente Voorbeeld", colour="#154273", brand_type="both", logo_png=png(),
                              logo_width=120, logo_height=40)
    ServiceAppearance.create(service=service, email_brand=brand)
    page = signed_in_member
    email = create_sample_template(service=service, template_type="email", body="Hello ((name)), welcome")
    page.goto(f"/services/{service.id}/templates/{email.id}")
    preview = page.frame_locator("iframe.notify-preview__email")
    mark = preview.locator("mark").first
    assert mark.inner_text() == "((name))"
    # The highlight is an inline style of the email document: it applies.
    assert mark.evaluate("m => getComputedStyle(m).backgroundColor") == "rgb(255, 242, 168)"
    logo = preview.locator("img").first
    logo.evaluate("i => i.complete || new Promise(done => i.addEventListener('load', done))")
    assert logo.evaluate("i => i.naturalWidth") == 120

    page.goto(f"/services/{service.id}/service-settings/appearance")
    framed = page.frame_locator("iframe.notify-appearance-preview")
    assert service.name in framed.locator("body").inner_text()
