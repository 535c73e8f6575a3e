"""The first platform admin: from the printed set-up link to a signed-in account with TOTP."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyotp

from core.accounts import create_setup_link
from models.user import Invitation, User, token_hash
from tests.console.browser import assert_accessible

ROOT = Path(__file__).resolve().parents[2]


def _path(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def test_the_set_up_link_makes_a_platform_admin_with_an_authenticator_app(page):
    page.goto(_path(create_setup_link()))
    assert page.inner_text("h1") == "Account aanmaken"
    assert_accessible(page)
    page.fill("#email_address", "Beheer@Example.gov.nl")
    page.fill("#name", "Eerste Beheerder")
    page.fill("#password", "a long enough password")
    page.fill("#password_confirm", "a long enough password")
    page.click("main form button[type=submit]")

    page.wait_for_url("**/two-factor/set-up")
    assert_accessible(page)
    page.check("#auth_type-0")  # authenticator app
    page.click("main form button[type=submit]")
    page.wait_for_url("**/two-factor/set-up/app")
    assert page.locator(".notify-qr svg").count() == 1
    assert_accessible(page)
    secret = page.inner_text("#totp-secret").strip()
    page.fill("#code", pyotp.TOTP(secret).now())
    page.click("main form button[type=submit]")

    page.wait_for_url("**/services")
    assert_accessible(page)
    user = User.get(User.email_address == "beheer@example.gov.nl")
    assert user.platform_admin and user.auth_type == "totp" and user.totp_secret == secret
    assert user.password_hash.startswith("$argon2id$")


def test_a_set_up_link_works_once(page):
    link = create_setup_link()
    page.goto(_path(link))
    page.fill("#email_address", "first@example.gov.nl")
    page.fill("#name", "First")
    page.fill("#password", "a long enough password")
    page.fill("#password_confirm", "a long enough password")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/two-factor/set-up")

    second = page.context.browser.new_context(base_url=page.url.split("/two-factor")[0]).new_page()
    response = second.goto(_path(link))
    assert response.status == 404
    assert second.inner_text("h1") == "Deze link werkt niet meer"
    assert_accessible(second)
    second.context.close()


def test_the_cli_prints_a_set_up_link():
    result = subprocess.run([sys.executable, "-m", "flask", "--app", "console", "create-platform-admin-link"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    link = result.stdout.strip().splitlines()[-1]
    assert link.startswith("https://admin.example.nl/invitation/")
    assert Invitation.get(Invitation.token_hash == token_hash(link.rsplit("/", 1)[1])).platform_admin
