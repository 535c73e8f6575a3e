"""A `next` from input is followed only when it is a path on this site, however it is written: the
language switch and signing in (before and after the second factor) send anything else to the
default page, and never answer 500; so does adding a reply-to address from the go-live checklist, which
returns there."""
from __future__ import annotations

from urllib.parse import quote

import pytest

from models.service import Service
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user, totp_now

OFF_SITE = [
    "/%09/evil.example/phish",
    "/\t/evil.example/phish",
    "/%0d%0aSet-Cookie:x=1",
    "/%0D%0ALocation:%20https://evil.example",
    "/\\evil.example",
    "/%5Cevil.example",
    "/%5C%5Cevil.example",
    "//evil.example",
    "///evil.example",
    "/%2F%2Fevil.example",
    "/%2f/evil.example",
    "/%252F%252Fevil.example",
    "%2F%2Fevil.example",
    "https://evil.example",
    "https:/evil.example",
    "HTTPS://evil.example/services",
    "//user:pass@evil.example",
    "https://user@evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(document.cookie)",
    "data:text/html,<script>alert(1)</script>",
    "evil.example",
    " /services",
    "/services%00",
    "/%E2%80%AE/evil.example",
    "/%25252525252F%25252525252Fevil.example",
    "",
]


@pytest.mark.parametrize("target", OFF_SITE)
def test_the_language_switch_sends_an_off_site_next_to_the_default_page(console_client, target):
    response = console_client.get(f"/language/en?next={target}")
    assert response.status_code == 302
    assert response.headers["Location"] == "/"


def test_the_language_switch_returns_to_a_page_of_this_site(console_client):
    response = console_client.get("/language/en?next=/services/abc/templates%3Ffolder%3D1")
    assert response.status_code == 302
    assert response.headers["Location"] == "/services/abc/templates?folder=1"


def _sign_in(console_client, user, target: str) -> str:
    """Open the sign-in page with `next`, give the password and the code; where the browser goes."""
    opened = console_client.get(f"/sign-in?next={target}")
    assert opened.status_code == 200
    token = csrf_token(console_client, "/sign-in")
    password = console_client.post("/sign-in", data={"csrf_token": token, "email_address": user.email_address,
                                                     "password": user.password})
    assert password.status_code == 302 and password.headers["Location"] == "/two-factor"
    code = console_client.post("/two-factor", data={"csrf_token": token, "code": totp_now(user)})
    assert code.status_code == 302
    return code.headers["Location"]


@pytest.mark.parametrize("target", [t for t in OFF_SITE if t])
def test_signing_in_sends_an_off_site_next_to_the_default_page(console_client, make_user, target):
    assert _sign_in(console_client, make_user(), target) == "/services"


def test_signing_in_returns_to_the_page_asked_for(console_client, make_user):
    assert _sign_in(console_client, make_user(), "/account%3Fx%3D1") == "/account?x=1"


def test_a_page_behind_sign_in_names_itself_as_next_only_when_it_can_be_followed_back(console_client):
    assert console_client.get("/account").headers["Location"] == "/sign-in?next=/account"
    assert console_client.get("/services/%0d%0a").headers["Location"] == "/sign-in"


@pytest.mark.parametrize("target", ["/%09/evil.example/phish", "/\\evil.example", "/%2F%2Fevil.example",
                                    "https://evil.example"])
def test_a_browser_following_the_language_switch_stays_on_the_console(page, console_server, target):
    page.goto(f"/language/en?next={target}")
    assert page.url.startswith(f"{console_server}/")
    assert page.inner_text("h1") == "Sign in"



def _manager_of_a_trial_service(console_app):
    service = Service.create(name="Loket", trial_mode=True)
    client = signed_in_client(console_app, create_console_user(service=service, permissions=["manage_service"]).user)
    return client, service


def test_a_reply_to_address_added_from_the_go_live_checklist_returns_to_it(console_app):
    client, service = _manager_of_a_trial_service(console_app)
    checklist = f"/services/{service.id}/service-settings/request-to-go-live"
    link = f"/services/{service.id}/service-settings/reply-to-addresses/add?next={checklist}"
    assert f'href="{link}"' in client.get(checklist).get_data(as_text=True)
    assert f'<a class="utrecht-link" href="{checklist}">Terug zonder op te slaan</a>' in (
        client.get(link).get_data(as_text=True))
    saved = client.post(link, data={"csrf_token": csrf_token(client, link), "value": "loket@example.gov.nl"})
    assert saved.status_code == 302 and saved.headers["Location"] == checklist


@pytest.mark.parametrize("target", [t for t in OFF_SITE if t])
def test_an_off_site_next_after_adding_a_reply_to_address_goes_to_the_addresses(console_app, target):
    client, service = _manager_of_a_trial_service(console_app)
    path = f"/services/{service.id}/service-settings/reply-to-addresses/add?next={quote(target, safe='')}"
    page = client.get(path).get_data(as_text=True)
    assert "Terug zonder op te slaan" not in page
    saved = client.post(path, data={"csrf_token": csrf_token(client, path), "value": "loket@example.gov.nl"})
    assert saved.status_code == 302
    assert saved.headers["Location"] == f"/services/{service.id}/service-settings/reply-to-addresses"
