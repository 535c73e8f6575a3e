"""The local mailbox of `dev.py run` without SMTP_URL: the catcher takes what the email provider sends,
and the console shows it to a platform admin, only in that mode."""
from __future__ import annotations

import time
from pathlib import Path

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
    invite(service.id, "nieuw.lid@example.gov.nl", ["view_activity"], platform_admin.user)
    _wait_for_mail(local_mailbox)
    sign_in(page, platform_admin)
    page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox").click()
    assert page.inner_text("h1") == "Lokale mailbox"
    row = page.locator("main tbody tr")
    assert row.count() == 1 and "nieuw.lid@example.gov.nl" in row.inner_text()
    assert_accessible(page)

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


def test_without_an_sms_gateway_the_code_for_a_mobile_number_is_in_the_local_mailbox(page, platform_admin,
                                                                                    local_mailbox):
    from models.user import User
    from tests.console.browser import code_in

    sign_in(page, platform_admin)
    page.goto("/account/mobile")
    assert "de code verschijnt in de lokale mailbox" in page.inner_text("main")
    page.fill("#mobile_number", "06 12345678")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/account/mobile/confirm")

    page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox").click()
    texts = page.locator("main table").last
    assert "Sms-berichten van het platform" in page.inner_text("main h2")
    assert "06 12345678" in texts.inner_text()  # written as every page writes a number
    assert_accessible(page)
    code = code_in(texts.locator("tbody tr").first.inner_text())

    page.goto("/account/mobile/confirm")
    page.fill("#code", code)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/account")
    assert User.get_by_id(platform_admin.user.id).mobile_number == "+31612345678"
