"""Signing in with each second factor, signing out, sessions ending, attempts limited, CSRF."""
from __future__ import annotations

import datetime

from models.db import utcnow
from models.notification import Notification
from models.platform import PLATFORM_SERVICE_ID, template_id
from models.user import User, UserSession
from tests.console.browser import assert_accessible, code_in, emails_to, sign_in
from tests.console.service_pages import signed_in_client
from tests.console.users import totp_now


def _password_step(page, user) -> None:
    page.goto("/sign-in")
    page.fill("#email_address", user.email_address)
    page.fill("#password", user.password)
    page.click("main form button[type=submit]")


def test_signing_in_with_a_code_sent_by_email_through_the_platform_service(page, make_user, real_providers, worker):
    smtp, _ = real_providers
    user = make_user()
    User.update(auth_type="email", totp_secret=None).where(User.id == user.user.id).execute()

    page.goto("/services")
    page.wait_for_url("**/sign-in?next=/services")
    assert_accessible(page)
    _password_step(page, user)
    page.wait_for_url("**/two-factor")
    assert user.email_address in page.inner_text("main")
    assert_accessible(page)
    [body] = emails_to(smtp, user.email_address)
    page.fill("#code", code_in(body))
    page.click("main form button[type=submit]")

    page.wait_for_url("**/services")  # where the visitor was going
    assert page.inner_text("h1") == "Uw diensten"
    [sent] = Notification.select().where(Notification.to == user.email_address)
    assert sent.service_id == PLATFORM_SERVICE_ID and sent.template_id == template_id("sign-in-code")
    assert sent.key_type == "live"


def test_an_emailed_code_works_once_and_a_wrong_one_is_refused(page, make_user, real_providers, worker):
    smtp, _ = real_providers
    user = make_user()
    User.update(auth_type="email").where(User.id == user.user.id).execute()
    _password_step(page, user)
    [body] = emails_to(smtp, user.email_address)
    code = code_in(body)
    page.fill("#code", "000000" if code != "000000" else "111111")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "De code is onjuist of verlopen." in page.inner_text("main")
    assert page.get_attribute("#code", "aria-invalid") == "true"
    assert_accessible(page)

    page.click("text=Stuur een nieuwe code")
    bodies = emails_to(smtp, user.email_address, count=2)
    page.fill("#code", code)  # the first code was replaced by the new one
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "De code is onjuist of verlopen." in page.inner_text("main")
    page.fill("#code", code_in(bodies[1]))
    page.click("main form button[type=submit]")
    page.wait_for_url("**/services")


def test_a_wrong_password_or_totp_code_does_not_sign_in(page, make_user):
    user = make_user()
    page.goto("/sign-in")
    page.fill("#email_address", user.email_address)
    page.fill("#password", "not the password")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "Het e-mailadres of wachtwoord is onjuist." in page.inner_text("main")
    assert_accessible(page)

    _password_step(page, user)
    page.fill("#code", "12345")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "De code bestaat uit 6 cijfers" in page.inner_text("main")
    assert page.url.endswith("/two-factor")
    assert UserSession.select().count() == 0


def test_sign_in_attempts_are_limited_per_address(page, make_user):
    user = make_user()
    for _ in range(10):
        page.goto("/sign-in")
        page.fill("#email_address", user.email_address)
        page.fill("#password", "wrong password")
        page.click("main form button[type=submit]")
    page.goto("/sign-in")
    page.fill("#email_address", user.email_address)
    page.fill("#password", user.password)  # even the right password, once over the limit
    with page.expect_response("**/sign-in") as answer:
        page.click("main form button[type=submit]")
    response = answer.value
    assert response.status == 429
    assert "Te veel pogingen om in te loggen" in page.inner_text("main")
    assert_accessible(page)


def test_signing_out_ends_the_session_on_the_server(page, make_user):
    user = make_user()
    sign_in(page, user)
    cookies = page.context.cookies()
    page.click("header button:has-text('Uitloggen')")
    page.wait_for_url("**/sign-in")
    assert "U bent uitgelogd." in page.inner_text("main")
    assert UserSession.get(UserSession.user == user.user).revoked_at is not None

    # A copy of the old cookie is worth nothing.
    copy = page.context.browser.new_context(base_url=page.url.split("/sign-in")[0])
    copy.add_cookies(cookies)
    stale = copy.new_page()
    stale.goto("/services")
    assert "/sign-in" in stale.url
    copy.close()


def test_signing_out_everywhere_ends_every_session(page, make_user):
    user = make_user()
    sign_in(page, user)
    other = page.context.browser.new_context(base_url=page.url.split("/services")[0]).new_page()
    sign_in(other, user)

    page.goto("/account")
    assert page.locator("tbody tr").count() == 2
    assert_accessible(page)
    page.click("main button:has-text('Overal uitloggen')")
    page.wait_for_url("**/sign-in")
    assert "U bent op alle apparaten uitgelogd." in page.inner_text("main")

    other.goto("/services")
    assert "/sign-in" in other.url
    assert UserSession.select().where(UserSession.revoked_at.is_null()).count() == 0
    other.context.close()


def test_a_session_idle_too_long_ends(page, make_user):
    user = make_user()
    sign_in(page, user)
    UserSession.update(last_seen_at=utcnow() - datetime.timedelta(minutes=61)).execute()
    page.goto("/account")
    page.wait_for_url("**/sign-in?next=/account&ended=1")
    assert "U bent uitgelogd omdat u een tijd niet actief was." in page.inner_text("main")
    assert_accessible(page)
    page.fill("#email_address", user.email_address)
    page.fill("#password", user.password)
    page.click("main form button[type=submit]")
    page.fill("#code", totp_now(user))
    page.click("main form button[type=submit]")
    page.wait_for_url("**/account")


def test_a_file_fetched_late_with_the_ended_cookie_does_not_overwrite_the_sign_in_page_cookie(console_app, make_user):
    # A browser still fetching the favicon of the last page sends the old cookie after the session
    # ended; had that answer set a cookie, it would replace the one the sign-in page just set and
    # lose where to go back to after signing in.
    user = make_user()
    client = signed_in_client(console_app, user.user)
    UserSession.update(last_seen_at=utcnow() - datetime.timedelta(minutes=61)).execute()
    response = client.get("/static/favicon.svg")
    assert response.status_code == 200
    assert "Set-Cookie" not in response.headers


def test_forms_refuse_a_post_without_the_csrf_token(console_client, make_user):
    user = make_user()
    response = console_client.post("/sign-in", data={"email_address": user.email_address, "password": user.password})
    assert response.status_code == 400
    assert "Het formulier is verlopen" in response.get_data(as_text=True)
    assert console_client.post("/sign-out-everywhere").status_code == 400


def test_a_totp_code_is_refused_the_second_time(page, make_user):
    user = make_user()
    sign_in(page, user)
    code = next(iter(user.used_codes))
    page.click("header button:has-text('Uitloggen')")
    _password_step(page, user)
    page.fill("#code", code)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "De code is onjuist of verlopen." in page.inner_text("main")


def test_signing_in_and_out_works_without_javascript(browser, console_server, make_user):
    user = make_user()
    context = browser.new_context(base_url=console_server, java_script_enabled=False)
    no_js = context.new_page()
    sign_in(no_js, user)
    no_js.goto("/account")
    assert user.email_address in no_js.inner_text("main")
    no_js.click("header button:has-text('Uitloggen')")
    no_js.wait_for_url("**/sign-in")
    context.close()
