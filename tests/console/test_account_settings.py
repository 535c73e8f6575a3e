"""Account settings, from the account page: name, password (current one required), email address
(verified by a link to the new address), mobile number (verified by a texted code), and a code by
text message as the second factor."""
from __future__ import annotations

import re

from core.account_settings import AccountError, change_password, confirm_email_change, find_email_change
from core.passwords import hash_password
from models.user import EmailChange, User, UserSession
from tests.console.browser import assert_accessible, code_in, emails_to, sign_in
from tests.factories import create_sample_template

NEW_PASSWORD = "paarse olifant danst op het dak"


def _submit(page) -> None:
    page.click("main form button[type=submit]")


def _texts_to(gateway, number: str, count: int) -> list[str]:
    messages = gateway.wait_for_messages(count, timeout=15)
    return [m.payload["body"] for m in messages if m.payload["to"] == number]


def test_a_user_changes_their_name_and_password(page, make_user, browser, console_server):
    user = make_user()
    other = browser.new_context(base_url=console_server).new_page()
    sign_in(other, user)  # a second browser, signed out by the change
    sign_in(page, user)
    page.goto("/account")
    page.click("main a:has-text('uw naam wijzigen')")
    assert_accessible(page)
    page.fill("#name", "  Anna   de Vries ")
    _submit(page)
    page.wait_for_url("**/account")
    assert "Uw naam is gewijzigd." in page.inner_text("main")
    assert "Anna de Vries" in page.inner_text("main dl")

    page.click("main a:has-text('uw wachtwoord wijzigen')")
    page.fill("#current_password", "not my password at all")
    page.fill("#password", NEW_PASSWORD)
    page.fill("#password_confirm", NEW_PASSWORD)
    _submit(page)
    assert "Uw huidige wachtwoord is onjuist" in page.inner_text(".notify-error-summary")
    page.fill("#current_password", user.password)
    page.fill("#password", "password1234")
    page.fill("#password_confirm", "password1234")
    _submit(page)
    assert "te makkelijk te raden" in page.inner_text(".notify-error-summary")
    assert_accessible(page)
    page.fill("#current_password", user.password)
    page.fill("#password", NEW_PASSWORD)
    page.fill("#password_confirm", NEW_PASSWORD)
    _submit(page)
    page.wait_for_url("**/account")
    assert "Uw wachtwoord is gewijzigd. U bent overal elders uitgelogd." in page.inner_text("main")
    assert UserSession.select().where((UserSession.user == user.user) & UserSession.revoked_at.is_null()).count() == 1

    other.goto("/account")
    assert "/sign-in" in other.url
    other.fill("#email_address", user.email_address)
    other.fill("#password", NEW_PASSWORD)
    other.click("main button[type=submit]")
    other.wait_for_url("**/two-factor")  # the new password is taken (the app's code of this moment is used up)


def test_a_new_email_address_counts_once_its_link_is_followed(page, make_user, real_providers, worker):
    smtp, _ = real_providers
    user = make_user()
    taken = make_user()
    sign_in(page, user)
    page.goto("/account/email")
    page.fill("#email_address", taken.email_address)
    _submit(page)
    assert "Er is al een account met dit e-mailadres" in page.inner_text(".notify-error-summary")
    assert_accessible(page)
    page.fill("#email_address", "Nieuw.Adres@Example.gov.nl")
    _submit(page)
    assert "We hebben een link gestuurd naar nieuw.adres@example.gov.nl." in page.inner_text("main")
    assert_accessible(page)
    assert User.get_by_id(user.user.id).email_address == user.email_address  # not yet

    [email] = emails_to(smtp, "nieuw.adres@example.gov.nl")
    path = re.search(r"https?://[^/\s]+(/account/email/confirm/[A-Za-z0-9_\-]+)", email).group(1)
    page.goto(path)
    assert "Voortaan logt u bij Notify NL in met nieuw.adres@example.gov.nl." in page.inner_text("main")
    assert_accessible(page)
    _submit(page)
    page.wait_for_url("**/account")
    assert "Uw e-mailadres is gewijzigd in nieuw.adres@example.gov.nl." in page.inner_text("main")
    assert User.get_by_id(user.user.id).email_address == "nieuw.adres@example.gov.nl"

    page.goto(path)  # single use
    assert page.inner_text("h1") == "Deze link werkt niet meer"


def test_an_email_change_link_expires_and_only_the_newest_works(make_user, real_providers, worker):
    import datetime

    from core.account_settings import request_email_change
    from models.db import utcnow
    from tests.console.browser import path_of_link

    smtp, _ = real_providers
    user = make_user().user
    request_email_change(user, "eerste@example.gov.nl")
    request_email_change(user, "tweede@example.gov.nl")
    first = path_of_link(emails_to(smtp, "eerste@example.gov.nl")[0], "account/email/confirm").rsplit("/", 1)[1]
    second = path_of_link(emails_to(smtp, "tweede@example.gov.nl")[0], "account/email/confirm").rsplit("/", 1)[1]
    assert find_email_change(first) is None  # replaced by the newer one
    change = find_email_change(second)
    EmailChange.update(expires_at=utcnow() - datetime.timedelta(seconds=1)).where(EmailChange.id == change.id).execute()
    assert find_email_change(second) is None  # expired
    EmailChange.update(expires_at=utcnow() + datetime.timedelta(hours=1)).where(EmailChange.id == change.id).execute()
    confirm_email_change(find_email_change(second))
    assert User.get_by_id(user.id).email_address == "tweede@example.gov.nl"
    assert find_email_change(second) is None  # used
    try:
        confirm_email_change(change)
    except AccountError as error:
        assert error.kind == "link-used"
    else:
        raise AssertionError("a used link changed the address again")


def test_changing_the_password_needs_the_current_one(make_user):
    user = make_user()
    try:
        change_password(user.user, "wrong", hash_password(NEW_PASSWORD))
    except AccountError as error:
        assert error.kind == "current-password"
    else:
        raise AssertionError("changed without the current password")


def test_a_mobile_number_is_confirmed_by_a_texted_code_then_signs_in(page, make_user, real_providers, worker):
    _, gateway = real_providers
    user = make_user()
    sign_in(page, user)
    page.goto("/account")
    page.click("main a:has-text('een mobiel nummer toevoegen')")
    assert_accessible(page)
    page.fill("#mobile_number", "06 1234")
    _submit(page)
    assert "Vul een geldig mobiel nummer in" in page.inner_text(".notify-error-summary")
    page.fill("#mobile_number", "06 12 34 56 78")
    _submit(page)
    page.wait_for_url("**/account/mobile/confirm")
    assert "06 12345678" in page.inner_text("main")
    assert_accessible(page)
    [text] = _texts_to(gateway, "+31612345678", 1)
    page.fill("#code", "000000" if code_in(text) != "000000" else "111111")
    _submit(page)
    assert "De code is onjuist of verlopen." in page.inner_text(".notify-error-summary")
    page.fill("#code", code_in(text))
    _submit(page)
    page.wait_for_url("**/account")
    assert "Uw mobiele nummer is toegevoegd." in page.inner_text("main")  # the first number: added
    assert User.get_by_id(user.user.id).mobile_number == "+31612345678"

    # The second factor by text message, now that there is a number.
    page.click("main a[href='/two-factor/set-up']")
    page.wait_for_url("**/two-factor/set-up")
    assert page.locator("input[name=auth_type]").count() == 3
    page.check("input[name=auth_type][value=sms]")
    _submit(page)
    page.wait_for_url("**/two-factor/set-up/text-message")
    assert "Vul de code in die we u per sms stuurden" in page.inner_text("main h1")
    assert_accessible(page)
    page.fill("#code", code_in(_texts_to(gateway, "+31612345678", 2)[1]))
    _submit(page)
    page.wait_for_url("**/account")
    assert "Code per sms" in page.inner_text("main")
    assert User.get_by_id(user.user.id).auth_type == "sms"

    page.context.clear_cookies()
    page.goto("/sign-in")
    page.fill("#email_address", user.email_address)
    page.fill("#password", user.password)
    page.click("main button[type=submit]")
    page.wait_for_url("**/two-factor")
    assert "eindigt op 678" in page.inner_text("main")
    assert_accessible(page)
    page.fill("#code", code_in(_texts_to(gateway, "+31612345678", 3)[2]))
    _submit(page)
    page.wait_for_url("**/services")


def test_without_an_sms_gateway_a_mobile_number_cannot_be_confirmed(page, make_user):
    sign_in(page, make_user())
    page.goto("/account/mobile")
    said = page.inner_text("main")
    assert "Hier is geen sms-gateway (de dienst die sms-berichten aflevert) ingesteld" in said
    assert "SMS_GATEWAY_URL" not in said and page.locator("#mobile_number").count() == 0  # words, not a setting
    assert_accessible(page)
    page.goto("/two-factor/set-up")
    assert page.locator("input[name=auth_type][value=sms]").count() == 0


def test_removing_the_number_drops_the_second_factor_by_text(make_user):
    from core.account_settings import set_mobile_number

    user = make_user().user
    User.update(mobile_number="+31612345678", auth_type="sms").where(User.id == user.id).execute()
    set_mobile_number(user, None)
    changed = User.get_by_id(user.id)
    assert changed.mobile_number is None and changed.auth_type is None


def test_members_confirmed_mobile_numbers_are_the_trial_mode_team(service, make_user):
    from pipeline.stages.send_checks import team_and_guest_list

    member = make_user(service=service).user
    outsider = make_user().user
    User.update(mobile_number="+31612345678").where(User.id == member.id).execute()
    User.update(mobile_number="+31687654321").where(User.id == outsider.id).execute()
    assert team_and_guest_list(service, "sms") == {"+31612345678"}


def test_send_to_yourself_in_trial_mode_once_the_account_has_a_mobile_number(signed_in_member, service,
                                                                            service_member, real_providers, worker):
    page, (_, gateway) = signed_in_member, real_providers
    service.trial_mode = True
    service.save()
    User.update(mobile_number="+31612345678").where(User.id == service_member.user.id).execute()
    create_sample_template(service=service, name="Afspraak", body="Uw afspraak is morgen.")
    page.goto(f"/services/{service.id}")
    page.click("nav.notify-service-nav >> text=Bericht versturen")
    page.click("a:text-is('Afspraak')")
    page.click("main a:has-text('Naar mijn eigen nummer versturen')")
    assert page.input_value("#phone_number") == "+31612345678"
    page.click("button[value=preview]")
    page.click("button[value=send]")
    page.wait_for_url(re.compile(rf"/services/{service.id}/notifications/[0-9a-f-]{{36}}$"))
    assert_accessible(page)
    [message] = gateway.wait_for_messages(1, timeout=15)
    assert (message.payload["to"], message.payload["body"]) == ("+31612345678", "Uw afspraak is morgen.")


def test_names_and_mobile_numbers_are_stored_normalised(make_user):
    from core.account_settings import change_name, normalised_mobile_number

    user = make_user().user
    change_name(user, "  Piet \t Jansen ")
    assert User.get_by_id(user.id).name == "Piet Jansen"
    for raw, stored in (("06 12 34 56 78", "+31612345678"), ("+31 (0)6-12345678", "+31612345678"),
                        ("+32 470 12 34 56", "+32470123456")):
        assert normalised_mobile_number(raw) == stored
    for bad in ("06 1234", "020 123 4567", "not a number"):
        try:
            normalised_mobile_number(bad)
        except AccountError as error:
            assert error.kind == "mobile"
        else:
            raise AssertionError(f"{bad!r} was taken as a mobile number")
