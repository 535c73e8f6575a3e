"""The local mailbox of `dev.py run` without SMTP_URL: the catcher takes what the email provider sends,
and the console shows it to a platform admin, only in that mode."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

import config
from core.accounts import invite
from tests.console.browser import assert_accessible, path_of_link, sign_in
from tests.console.service_pages import signed_in_client


def _wait_for_mail(directory: Path, count: int = 1) -> None:
    deadline = time.monotonic() + 15
    while len(list(directory.glob("*.eml"))) < count:
        assert time.monotonic() < deadline, "no email reached the local mailbox"
        time.sleep(0.05)


def test_the_platform_admin_opens_an_invitation_in_the_local_mailbox(page, platform_admin, service, local_mailbox,
                                                                     worker):
    from workers.platform_email import send_platform_sms

    invite(service.id, "nieuw.lid@example.gov.nl", ["view_activity"], platform_admin.user)
    send_platform_sms("mobile-code", "+31612345678", {"code": "123456"})  # no SMS gateway: shown here too
    _wait_for_mail(local_mailbox)
    sign_in(page, platform_admin)
    page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox").click()
    assert page.inner_text("h1") == "Lokale mailbox"
    assert page.locator("main h2").all_inner_texts() == ["E-mails", "Sms-berichten van het platform"]
    row = page.locator("main table").first.locator("tbody tr")
    assert row.count() == 1 and "nieuw.lid@example.gov.nl" in row.inner_text()
    assert "123456" in page.locator("main table").last.inner_text()
    assert_accessible(page, rules=("landmark-unique",))  # two tables, each its region named apart

    row.get_by_role("link").click()
    assert page.inner_text("h1") == f"Uitnodiging voor {service.name}"  # made by no page: in Dutch
    text = page.inner_text("pre.notify-mail-text")
    assert "Test User nodigt u uit" in text
    frame = page.frame_locator("iframe.notify-email-preview")
    assert "Test User nodigt u uit" in frame.locator("body").inner_text()
    assert page.get_attribute("iframe.notify-email-preview", "sandbox") == ""
    assert_accessible(page)

    page.context.clear_cookies()  # the invited person follows the link from the mailbox
    page.goto(path_of_link(text, "invitation"))
    assert f"U bent uitgenodigd voor {service.name}." in page.inner_text("main")


def test_the_mailbox_is_for_platform_admins_only(page, make_user, local_mailbox):
    sign_in(page, make_user())
    assert page.goto("/platform-admin/local-mailbox").status == 403
    assert page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox").count() == 0


def test_without_the_local_mailbox_there_is_no_mailbox_page(page, platform_admin):
    sign_in(page, platform_admin)
    assert page.goto("/platform-admin/local-mailbox").status == 404
    assert page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox").count() == 0


def test_a_message_id_names_only_a_message_of_the_mailbox(console_app, platform_admin, local_mailbox):
    console_client = signed_in_client(console_app, platform_admin.user)
    (local_mailbox.parent / "secret.eml").write_text("Subject: not mail\n\nsecret")
    for mail_id in ("../secret", "..%2Fsecret", "00000000000000000000-" + "0" * 32):
        assert console_client.get(f"/platform-admin/local-mailbox/{mail_id}").status_code == 404


def test_the_mailbox_lists_the_newest_first_and_reads_plain_and_html_parts(local_mailbox):
    import smtplib
    from email.message import EmailMessage

    import local_mailbox as mailbox

    port = int(config.get_settings().smtp_url.rsplit(":", 1)[1])
    for subject, html in (("Eerste", None), ("Tweede", "<p>Hallo <b>daar</b></p>")):
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = "a@example.nl", "b@example.nl", subject
        message.set_content(f"{subject} in tekst")
        if html:
            message.add_alternative(html, subtype="html")
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            smtp.send_message(message)
    _wait_for_mail(local_mailbox, 2)
    newest, oldest = mailbox.messages(local_mailbox)
    assert (newest.subject, newest.text.strip(), newest.html.strip()) == ("Tweede", "Tweede in tekst",
                                                                          "<p>Hallo <b>daar</b></p>")
    assert (oldest.subject, oldest.to, oldest.html) == ("Eerste", "b@example.nl", None)
    assert mailbox.message(local_mailbox, oldest.id) == oldest


def _code_from_the_mailbox(page) -> str:
    """From a page waiting for a code: its link to the local mailbox, the code there, back by its link."""
    from tests.console.browser import code_in

    waiting = page.url
    note = page.locator("main .notify-code-in-mailbox")
    assert "de sms komt op geen enkele telefoon aan: hij staat in de lokale mailbox" in note.inner_text()
    with page.expect_navigation():
        note.get_by_role("link", name="De sms in de lokale mailbox bekijken").click()
    assert_accessible(page)
    code = code_in(page.locator("main table").last.locator("tbody tr").first.inner_text())
    with page.expect_navigation():
        page.get_by_role("link", name="Terug naar het invullen van de code").click()
    assert page.url == waiting
    return code


def test_without_an_sms_gateway_the_code_for_a_mobile_number_is_in_the_local_mailbox(page, platform_admin,
                                                                                    local_mailbox):
    from models.user import User

    sign_in(page, platform_admin)
    page.goto("/account/mobile")
    said = page.inner_text("main")
    assert "de code komt in de lokale mailbox, en de volgende pagina linkt daarheen" in said
    assert "SMS_GATEWAY_URL" not in said and "README" not in said  # the console's own page instead
    assert page.locator("main").get_by_role("link", name="Een sms-gateway instellen").get_attribute("href") == (
        "/platform-admin/sms-gateways")
    page.fill("#mobile_number", "06 12345678")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/account/mobile/confirm")
    assert_accessible(page)
    assert "Sms-berichten van het platform" in _mailbox_heading_after(page)
    page.fill("#code", _code_from_the_mailbox(page))
    page.click("main form button[type=submit]")
    page.wait_for_url("**/account")
    assert "Uw mobiele nummer is toegevoegd." in page.inner_text(".notify-flashes")  # the first: added
    assert User.get_by_id(platform_admin.user.id).mobile_number == "+31612345678"

    page.goto("/account/mobile")
    page.fill("#mobile_number", "06 87654321")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/account/mobile/confirm")
    page.fill("#code", _code_from_the_mailbox(page))
    page.click("main form button[type=submit]")
    page.wait_for_url("**/account")
    assert "Uw mobiele nummer is gewijzigd." in page.inner_text(".notify-flashes")  # another one: changed


def _mailbox_heading_after(page) -> str:
    """The platform admin's whole mailbox, from its menu, and back."""
    back = page.url
    page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox").click()
    page.wait_for_url("**/platform-admin/local-mailbox")
    headings = page.locator("main h2").all_inner_texts()
    assert headings[0] == "E-mails"
    assert_accessible(page)
    page.goto(back)
    return " ".join(headings)


def test_who_is_not_a_platform_admin_sees_only_the_codes_this_browser_had_texted(page, make_user, platform_admin,
                                                                                local_mailbox):
    from core.account_settings import set_mobile_number
    from models.user import User

    # Someone else's code, texted earlier: a platform admin sees it, nobody else does.
    other = make_user()
    set_mobile_number(other.user, "+31699999999")
    User.update(auth_type="sms").where(User.id == other.user.id).execute()
    page.goto("/sign-in")
    page.fill("#email_address", other.email_address)
    page.fill("#password", other.password)
    page.click("main button[type=submit]")
    page.wait_for_url("**/two-factor")
    page.context.clear_cookies()

    member = make_user()
    set_mobile_number(member.user, "+31612345678")
    User.update(auth_type="sms").where(User.id == member.user.id).execute()
    assert page.goto("/platform-admin/local-mailbox").url.endswith("/sign-in?next=/platform-admin/local-mailbox")
    page.context.clear_cookies()
    page.goto("/sign-in")
    page.fill("#email_address", member.email_address)
    page.fill("#password", member.password)
    page.click("main button[type=submit]")
    page.wait_for_url("**/two-factor")
    # Signing in with a code by text on a machine without a gateway: the code is in the local mailbox, and
    # the person signing in reads their own there (no lock-out), nothing else.
    code = _code_from_the_mailbox(page)
    page.goto("/platform-admin/local-mailbox")
    shown = page.inner_text("main")
    assert "06 12345678" in shown and "06 99999999" not in shown and page.locator("main table").count() == 1
    assert "een platformbeheerder ziet de hele mailbox" in shown
    page.goto("/two-factor")
    page.fill("#code", code)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/services")


@pytest.mark.parametrize("target", ["//evil.example", "https://evil.example", "/%5Cevil.example"])
def test_the_way_back_from_the_mailbox_stays_on_the_site(page, platform_admin, local_mailbox, target):
    sign_in(page, platform_admin)
    page.goto(f"/platform-admin/local-mailbox?next={target}")
    assert page.get_by_role("link", name="Terug naar het invullen van de code").count() == 0
    page.goto("/platform-admin/local-mailbox?next=/account/mobile/confirm")
    assert page.get_by_role("link", name="Terug naar het invullen van de code").get_attribute("href") == (
        "/account/mobile/confirm")
