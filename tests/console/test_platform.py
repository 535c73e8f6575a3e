"""The platform's own service and the first admin's set-up link (printed by `dev.py run`)."""
from __future__ import annotations

from core.accounts import setup_link_if_no_admin
from models.platform import PLATFORM_SERVICE_ID, SMS_TEMPLATES, TEMPLATES, ensure_platform_service, template_id
from models.service import Service
from models.template import Template
from models.user import Invitation
from tests.console.browser import assert_accessible, sign_in
from tests.console.users import create_console_user


def test_the_platform_service_is_made_once_with_its_templates():
    first = ensure_platform_service()
    again = ensure_platform_service()
    assert first.id == again.id == PLATFORM_SERVICE_ID
    assert not first.trial_mode and first.permissions == ["email", "sms"]
    assert Service.select().count() == 1
    assert {t.id for t in Template.select()} == {template_id(key, language) for key in [*TEMPLATES, *SMS_TEMPLATES]
                                                 for language in ("nl", "en")}


def test_a_set_up_link_is_printed_only_while_there_is_no_platform_admin():
    assert setup_link_if_no_admin().startswith("https://admin.example.nl/invitation/")
    create_console_user(platform_admin=False)
    assert setup_link_if_no_admin() is not None
    create_console_user(platform_admin=True)
    assert setup_link_if_no_admin() is None
    assert Invitation.select().count() == 2


def test_a_signed_in_user_changes_the_second_factor_to_email(page, make_user, real_providers):
    from models.notification import Notification
    from models.user import User

    user = make_user()
    sign_in(page, user)
    page.goto("/account")
    page.click("main a[href='/two-factor/set-up']")
    page.check("#auth_type-1")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/two-factor/set-up/email")
    assert page.inner_text("main h1") == "Bevestig uw e-mailadres"
    code = Notification.get(Notification.to == user.email_address).personalisation["code"]
    page.fill("#code", code)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/account")
    assert "Uw tweede factor is gewijzigd." in page.inner_text("main")
    assert "Code per e-mail" in page.inner_text("main")
    assert_accessible(page)
    changed = User.get_by_id(user.user.id)
    assert changed.auth_type == "email" and changed.totp_secret is None


def test_without_an_email_provider_only_the_app_is_offered(page, make_user):
    sign_in(page, make_user())
    page.goto("/two-factor/set-up")
    assert page.locator("input[name=auth_type]").count() == 1
    assert page.get_attribute("input[name=auth_type]", "value") == "totp"
    said = page.inner_text("main")
    assert "Codes per e-mail hebben een e-mailserver nodig" in said and "SMTP_URL" not in said
    assert_accessible(page)


def test_only_platform_admins_are_shown_the_platform_pages(page, platform_admin, make_user):
    sign_in(page, platform_admin)
    page.goto("/")
    menu = page.locator("nav.notify-nav")
    for name, path in (("Werkprocessen en wachtrijen", "/platform-admin/workers"),
                       ("Aanvragen om live te gaan", "/platform-admin/go-live-requests"), ("Huisstijlen", "/brands")):
        assert menu.get_by_role("link", name=name).get_attribute("href") == path
    with page.expect_navigation():
        menu.get_by_role("link", name="Werkprocessen en wachtrijen").click()
    assert page.locator("h1").count() == 1
    assert_accessible(page)
    page.context.clear_cookies()
    sign_in(page, make_user())
    page.goto("/")
    assert page.locator("nav.notify-nav").get_by_role("link", name="Werkprocessen en wachtrijen").count() == 0


def test_the_consoles_emails_are_written_in_the_language_of_the_page_that_sends_them(console_app, service,
                                                                                     real_providers, worker):
    from models.notification import Notification
    from tests.console.browser import emails_to
    from tests.console.service_pages import csrf_token, signed_in_client

    manager = create_console_user(service=service, permissions=["manage_service"], name="Karin")
    client = signed_in_client(console_app, manager.user)
    invite = f"/services/{service.id}/users/invite"
    for language, address in (("nl", "nieuw@example.gov.nl"), ("en", "new@example.gov.nl")):
        with client.session_transaction() as session:
            session["lang"] = language
        response = client.post(invite, data={"csrf_token": csrf_token(client, invite), "email_address": address,
                                             "permissions": ["view_activity"]})
        assert response.status_code == 302
    dutch = Notification.get(Notification.to == "nieuw@example.gov.nl")
    english = Notification.get(Notification.to == "new@example.gov.nl")
    assert dutch.template_id == template_id("invitation", "nl")
    assert english.template_id == template_id("invitation", "en")
    assert dutch.subject == f"Uitnodiging voor {service.name}"
    assert dutch.body.startswith(f"Karin nodigt u uit voor {service.name} op Notify NL. Maak uw account aan")
    assert "invited" not in dutch.body and "Invitation" not in dutch.subject
    assert english.subject == f"Invitation to {service.name}"
    assert english.body.startswith(f"Karin has invited you to {service.name} on Notify NL.")
    assert "nodigt" not in english.body
    # As delivered: the HTML part in the email's own language, its footer included.
    smtp, _gateway = real_providers
    emails_to(smtp, "new@example.gov.nl")
    emails_to(smtp, "nieuw@example.gov.nl")
    html = {address: next(m for m in smtp.messages if address in m.rcpt_tos).message.get_body(
        preferencelist=("html",)).get_content() for address in ("new@example.gov.nl", "nieuw@example.gov.nl")}
    assert '<html lang="en"' in html["new@example.gov.nl"] and "This email was sent by" in html["new@example.gov.nl"]
    assert '<html lang="nl"' in html["nieuw@example.gov.nl"] and "Deze e-mail is verstuurd door" in html[
        "nieuw@example.gov.nl"]


def test_the_bilingual_templates_of_release_0_8_are_archived():
    import uuid

    from models.platform import _NAMESPACE

    service = ensure_platform_service()
    old = Template.create(id=uuid.uuid5(_NAMESPACE, "template:invitation"), service=service, template_type="email")
    ensure_platform_service()
    assert Template.get_by_id(old.id).archived
