"""Invitations (new and existing users) and password resets, from the email to a signed-in page."""
from __future__ import annotations

import datetime

import pytest

from core.accounts import InvitationError, invite
from models.db import utcnow
from models.notification import Notification
from models.user import Invitation, ServiceUser, User, UserSession
from tests.console.browser import assert_accessible, code_in, emails_to, path_of_link, sign_in
from tests.console.users import totp_now


def test_an_invited_person_creates_an_account_with_email_codes(page, platform_admin, service, real_providers, worker):
    smtp, _ = real_providers
    invite(service.id, "Nieuw.Lid@example.gov.nl", ["view_activity", "send_messages"], platform_admin.user)
    [email] = emails_to(smtp, "nieuw.lid@example.gov.nl")
    assert service.name in email and "Test User" in email

    page.goto(path_of_link(email, "invitation"))
    assert f"U bent uitgenodigd voor {service.name}." in page.inner_text("main")
    assert page.locator("#email_address").count() == 0  # the invitation fixes the address
    assert_accessible(page)
    page.fill("#name", "Nieuw Lid")
    page.fill("#password", "short")
    page.fill("#password_confirm", "other")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "Uw wachtwoord moet minstens 10 tekens lang zijn" in page.inner_text(".notify-error-summary")
    assert_accessible(page)
    page.fill("#name", "Nieuw Lid")
    page.fill("#password", "a long enough password")
    page.fill("#password_confirm", "a long enough password")
    page.click("main form button[type=submit]")

    page.wait_for_url("**/two-factor/set-up")
    with page.expect_navigation():
        page.click("main form button[type=submit]")  # nothing chosen
    assert "Kies hoe u bevestigt dat u het bent" in page.inner_text("main")
    assert_accessible(page)
    page.check("#auth_type-1")  # a code by email
    page.click("main form button[type=submit]")
    page.wait_for_url("**/two-factor/set-up/email")
    assert_accessible(page)
    bodies = emails_to(smtp, "nieuw.lid@example.gov.nl", count=2)
    page.fill("#code", code_in(bodies[1]))
    page.click("main form button[type=submit]")

    page.wait_for_url("**/services")
    assert service.name in page.inner_text("main")
    user = User.get(User.email_address == "nieuw.lid@example.gov.nl")
    assert user.auth_type == "email" and not user.platform_admin
    assert ServiceUser.get(user=user, service=service).permissions == ["view_activity", "send_messages"]

    page.goto(path_of_link(email, "invitation"))  # a second time: used
    assert page.inner_text("h1") == "Deze link werkt niet meer"


def test_an_existing_user_signs_in_to_accept(page, make_user, platform_admin, service, real_providers, worker):
    smtp, _ = real_providers
    user = make_user()
    invite(service.id, user.email_address, ["manage_templates"], platform_admin.user)
    [email] = emails_to(smtp, user.email_address)

    page.goto(path_of_link(email, "invitation"))
    page.wait_for_url("**/sign-in")
    assert "Log in om de uitnodiging te accepteren." in page.inner_text("main")
    page.fill("#email_address", user.email_address)
    page.fill("#password", user.password)
    page.click("main form button[type=submit]")
    page.fill("#code", totp_now(user))
    page.click("main form button[type=submit]")
    page.wait_for_url("**/invitation/*")
    assert_accessible(page)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/services")
    assert "U heeft de uitnodiging geaccepteerd." in page.inner_text("main")
    assert ServiceUser.get(user=user.user, service=service).permissions == ["manage_templates"]


def test_an_invitation_for_someone_else_is_not_accepted(page, make_user, platform_admin, service):
    someone = make_user()
    invitation_link = _invitation_path(service, "iemand.anders@example.gov.nl", platform_admin)
    sign_in(page, someone)
    page.goto(invitation_link)
    assert page.inner_text("h1") == "Deze uitnodiging is voor iemand anders"
    assert_accessible(page)
    assert ServiceUser.select().where(ServiceUser.user == someone.user).count() == 0


def test_an_expired_invitation_does_not_work(page, platform_admin, service):
    link = _invitation_path(service, "laat@example.gov.nl", platform_admin)
    Invitation.update(expires_at=utcnow() - datetime.timedelta(seconds=1)).execute()
    response = page.goto(link)
    assert response.status == 404
    assert "De uitnodiging is verlopen of al gebruikt." in page.inner_text("main")


def test_invite_refuses_what_cannot_be_an_invitation(platform_admin, service):
    with pytest.raises(InvitationError, match="unknown permissions: fly"):
        invite(service.id, "a@example.gov.nl", ["fly"], platform_admin.user)
    with pytest.raises(InvitationError, match="Not a valid email address"):
        invite(service.id, "not an address", ["view_activity"], platform_admin.user)
    assert Invitation.select().count() == 0


def test_a_password_reset_by_email_signs_out_everywhere(page, make_user, real_providers, worker):
    smtp, _ = real_providers
    user = make_user()
    sign_in(page, user)

    page.click("header button:has-text('Uitloggen')")
    page.click("text=Wachtwoord vergeten?")
    assert_accessible(page)
    page.fill("#email_address", user.email_address)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.inner_text("h1") == "Kijk in uw e-mail"
    assert_accessible(page)
    [email] = emails_to(smtp, user.email_address)
    link = path_of_link(email, "reset-password")

    sign_in(page, user)  # a session opened before the reset ends with it
    page.goto(link)
    assert_accessible(page)
    page.fill("#password", "my brand new password")
    page.fill("#password_confirm", "my brand new password")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/sign-in")
    assert "Uw wachtwoord is gewijzigd." in page.inner_text("main")
    assert UserSession.select().where(UserSession.revoked_at.is_null()).count() == 0

    user.password = "my brand new password"
    sign_in(page, user)
    page.goto(link)
    assert page.inner_text("h1") == "Deze link werkt niet meer"


def test_a_reset_for_an_unknown_address_looks_the_same_and_sends_nothing(page, real_providers, worker):
    smtp, _ = real_providers
    page.goto("/forgot-password")
    page.fill("#email_address", "niemand@example.gov.nl")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.inner_text("h1") == "Kijk in uw e-mail"
    assert smtp.messages == []


def _invitation_path(service, email: str, inviter) -> str:
    """An invitation's link as recorded in its email's notification (no worker needed)."""
    invite(service.id, email, ["view_activity"], inviter.user)
    sent = Notification.get(Notification.to == email)
    return "/" + sent.personalisation["url"].split("/", 3)[3]
