"""In a real browser, with real workers (issue 44): a text sent from the console with an email to fall
back to fails at the gateway, the email goes out, and each message's page links to the other; the
spreadsheet pages offer the alternatives and the job and usage pages show the chain. axe-core checks
every page on the way; each page is also kept as a PNG (/tmp/fallback-*.png) to look at."""
from __future__ import annotations

import re

from config import get_settings
from models.job import Job
from tests.console.browser import assert_accessible
from tests.factories import create_notification, create_sample_template, set_chain
from tests.jobs.helpers import csv_file, phone


def _shot(page, name: str) -> None:
    page.screenshot(path=f"/tmp/fallback-{name}.png", full_page=True)


def _templates(service):
    return (create_sample_template(service=service, name="Afspraak", body="Beste ((naam)), tot vrijdag."),
            create_sample_template(service=service, template_type="email", name="Afspraak per e-mail",
                                   subject="Uw afspraak", body="Beste ((naam)), tot vrijdag."),
            create_sample_template(service=service, template_type="letter", name="Afspraakbrief",
                                   body="Beste ((naam)), tot vrijdag."))


def test_a_text_that_fails_falls_back_to_the_email_chosen_in_the_console(signed_in_member, service, real_providers,
                                                                         worker):
    page, (smtp, gateway) = signed_in_member, real_providers
    text, email, _ = _templates(service)
    page.goto(f"/services/{service.id}/send/{text.id}/one")
    page.fill("#phone_number", "06 12345678")
    page.fill("#placeholder_0", "Anna")
    page.select_option("#fallback_email_template", label="Afspraak per e-mail")
    page.fill("#fallback_email_address", "anna@example.nl")
    assert_accessible(page)
    _shot(page, "send-one-form")
    with page.expect_navigation():
        page.click("button[value=preview]")
    assert "dan de e-mail Afspraak per e-mail naar anna@example.nl" in page.inner_text("main")
    assert_accessible(page)
    _shot(page, "send-one-preview")
    page.click("button[value=send]")
    page.wait_for_url(re.compile(rf"/services/{service.id}/notifications/[0-9a-f-]{{36}}$"))
    assert "Als dit bericht niet afgeleverd kan worden, hierna: E-mail" in page.inner_text("main")
    [message] = gateway.wait_for_messages(1)
    gateway.send_receipt(message.payload["callback_url"], get_settings().provider_webhook_token, message.id,
                         "undeliverable")  # the number does not exist
    # The status section follows the message live: the link to the email appears without a reload.
    page.wait_for_selector("text=Niet afgeleverd, dus dit is in plaats daarvan verstuurd:", timeout=20000)
    assert_accessible(page)
    _shot(page, "message-fell-back")
    page.click(".notify-fallback-chain a")
    assert "Verstuurd in plaats van Sms naar 06 12345678" in page.inner_text("main")
    assert_accessible(page)
    _shot(page, "message-stands-in")
    for _ in range(200):
        if [m for m in smtp.messages if "anna@example.nl" in m.rcpt_tos]:
            break
        page.wait_for_timeout(100)
    [received] = [m for m in smtp.messages if "anna@example.nl" in m.rcpt_tos]
    assert received.message["Subject"] == "Uw afspraak"


def test_the_spreadsheet_pages_offer_the_alternatives_and_show_the_chain(signed_in_member, service):
    page = signed_in_member
    text, email, letter = _templates(service)
    page.goto(f"/services/{service.id}/send/{text.id}/upload")
    page.select_option("#fallback_email", label="Afspraak per e-mail")
    page.select_option("#fallback_letter", label="Afspraakbrief")
    page.set_input_files("#file", files=[{"name": "mensen.csv", "mimeType": "text/csv", "buffer": csv_file(
        ["telefoonnummer", "e-mailadres", "adresregel 1", "adresregel 2", "adresregel 3", "naam"],
        [[phone(0), "anna@example.nl", "A. Jansen", "Kerkstraat 1", "1234 AB Utrecht", "Anna"],
         [phone(1), "", "", "", "", "Bob"]])}])
    assert_accessible(page)
    _shot(page, "upload")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "dan de brief Afspraakbrief: 1 rijen hebben een adres" in page.inner_text("main")
    assert_accessible(page)
    _shot(page, "check")
    page.click("main form button:text-is('Versturen')")
    page.wait_for_url(re.compile(r"/jobs/[0-9a-f-]{36}$"))
    job = Job.get()
    first = create_notification(service=service, template=text, to=phone(0), job_id=job.id, job_row_number=0,
                                status="permanent-failure")
    sent = create_notification(service=service, template=email, to="anna@example.nl", fallback_for=first.id)
    set_chain(first.id, fallback_sent_as=sent.id)
    Job.update(rows_processed=1, status="finished").where(Job.id == job.id).execute()
    page.reload()
    assert page.inner_text("#count-fell-back") == "1"
    assert_accessible(page)
    _shot(page, "job")
    page.goto(f"/services/{service.id}/usage")
    assert_accessible(page)
    _shot(page, "usage")
