"""The first platform admin: from the printed set-up link to a signed-in account, with TOTP or with the mobile
number the account form asks for (its texted code confirms it and becomes the second factor)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyotp

from core.accounts import create_setup_link
from models.user import Invitation, User, token_hash
from tests.console.browser import assert_accessible, code_in

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

    # Confirmed; a member of no service yet, so on to adding the first.
    page.wait_for_url("**/services/new")
    assert page.inner_text(".notify-flashes") == ("Uw tweede factor is ingesteld: bij het inloggen vult u de code in "
                                                  "die uw authenticator-app toont.")
    assert_accessible(page)
    user = User.get(User.email_address == "beheer@example.gov.nl")
    assert user.platform_admin and user.auth_type == "totp" and user.totp_secret == secret
    assert user.password_hash.startswith("$argon2id$") and user.mobile_number is None


def _create_account(page, mobile_number: str) -> None:
    page.goto(_path(create_setup_link()))
    page.fill("#email_address", "beheer@example.gov.nl")
    page.fill("#name", "Eerste Beheerder")
    page.fill("#mobile_number", mobile_number)
    page.fill("#password", "a long enough password")
    page.fill("#password_confirm", "a long enough password")
    with page.expect_navigation():
        page.click("main form button[type=submit]")


def test_the_mobile_number_given_is_confirmed_by_its_code_and_becomes_the_second_factor(page, local_mailbox, worker):
    _create_account(page, "06 12 34 56 78")
    assert page.url.endswith("/two-factor/set-up/text-message")
    assert "06 12345678" in page.inner_text("main")
    assert User.get(User.email_address == "beheer@example.gov.nl").mobile_number is None  # not before its code
    # No SMS gateway: the page says where the text went and links there; the mailbox shows this browser its code.
    note = page.locator("main .notify-code-in-mailbox")
    assert note.inner_text().startswith(
        "Hier is geen sms-gateway ingesteld, dus de sms komt op geen enkele telefoon aan")
    assert_accessible(page)
    with page.expect_navigation():
        note.get_by_role("link", name="De sms in de lokale mailbox bekijken").click()
    assert page.url.endswith("/platform-admin/local-mailbox?next=/two-factor/set-up/text-message")
    assert page.locator("main table").count() == 1  # the texts only: no emails before signing in
    assert_accessible(page)
    code = code_in(page.locator("main tbody tr").first.inner_text())
    with page.expect_navigation():
        page.get_by_role("link", name="Terug naar het invullen van de code").click()
    page.fill("#code", code)
    with page.expect_navigation():
        page.click("main form button[type=submit]")

    assert page.url.endswith("/services/new")
    assert page.inner_text(".notify-flashes") == (
        "Uw mobiele nummer is bevestigd en uw tweede factor is ingesteld: bij het inloggen vult u een code in die we u "
        "per sms sturen.")
    user = User.get(User.email_address == "beheer@example.gov.nl")
    assert (user.mobile_number, user.auth_type, user.totp_secret) == ("+31612345678", "sms", None)


def test_a_wrong_mobile_number_is_said_beside_it_and_makes_no_account(page, local_mailbox):
    _create_account(page, "06 123")
    assert page.inner_text("#mobile_number-error-1") == (
        "Vul een geldig mobiel nummer in, bijvoorbeeld 06 12345678 of +32 470 12 34 56")
    assert_accessible(page)
    assert User.get_or_none(User.email_address == "beheer@example.gov.nl") is None


def test_without_a_way_to_read_a_text_the_form_does_not_ask_for_a_number(page):
    page.goto(_path(create_setup_link()))  # no SMS gateway and no local mailbox: a code would reach nobody
    assert page.locator("#mobile_number").count() == 0
    assert page.locator("#name").count() == 1


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
