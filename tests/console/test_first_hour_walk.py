"""A newcomer's first hour as one walk in Chromium (issue 32), as `python3 dev.py run` leaves it: no
SMTP_URL (the local mailbox catches the email), no SMS gateway (the simulated provider), a real worker.

From the printed set-up link: the first platform admin, a first service from the services list, an API
key, an sms and an email template, the account's mobile number (its code read in the local mailbox),
a text to yourself in trial mode and the refusal of a stranger's number as a Dutch sentence with its
link, a team member invited by email (the invitation read in the local mailbox, its link followed),
going live, a 1,000-row spreadsheet whose messages all reach the message list, its search and its CSV,
the job's report, a precompiled letter checked, previewed and sent, the API integration page after a
send with the official Python client, and a key rotated with an overlap.

The invitation comes before the spreadsheet, not last: going live needs a team member other than you,
and a service in trial mode can neither send to 1,000 strangers nor send letters.

Every page the walk stops at is checked with axe-core and must fit a 375 px screen. With
LOOK_UPDATE_DOCS=1 (as tests/look) each is also photographed at 1280 and 375 px into docs/look/
(first-hour-NN-<page>-<width>.png, shown in the README); otherwise nothing is compared pixel-wise.
"""
from __future__ import annotations

import io
import re
import time

import pyotp
from notifications_python_client.notifications import NotificationsAPIClient
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from core.accounts import create_setup_link
from models.notification import Notification
from pipeline.domain.recipients import written_phone_number
from tests.conftest import wait_for
from tests.console.browser import assert_accessible, code_in, downloaded_rows, path_of_link
from tests.console.walk_stops import ROOT, WIDE, Walk
from tests.jobs.helpers import csv_file, phone

ROWS = 1000
OWN_MOBILE = "+31612345678"
PASSWORD = "een lang genoeg wachtwoord"


def _submit(page, label: str) -> None:
    with page.expect_navigation():
        page.locator("main").get_by_role("button", name=label, exact=True).click()


def _nav(page, label: str) -> None:
    with page.expect_navigation():
        page.locator("nav.notify-service-nav").get_by_role("link", name=label, exact=True).click()


def _newest_texted_code(page) -> str:
    with page.expect_navigation():
        page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox").click()
    texts = page.locator("main table").last
    assert written_phone_number(OWN_MOBILE) in texts.inner_text()  # "06 12345678", as every page writes it
    # On the clock of the platform's default zone, named (the page is no service's).
    assert re.fullmatch(r".+ \d\d:\d\d:\d\d CES?T", texts.locator("tbody tr td").last.inner_text())
    return code_in(texts.locator("tbody tr").first.inner_text())


def _decision_letter() -> bytes:
    """A two-page letter as a team's own system would print it: the address in the envelope's window."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    top = A4[1]
    for line, text in enumerate(["Mevrouw A. de Vries", "Keizersgracht 123", "1015 CJ Amsterdam"]):
        canvas.drawString(25 * mm, top - (55 + 5 * line) * mm, text)
    canvas.setFont("Helvetica-Bold", 12)
    canvas.drawString(25 * mm, top - 110 * mm, "Besluit op uw aanvraag voor een parkeervergunning")
    canvas.setFont("Helvetica", 11)
    for line, text in enumerate(["Beste mevrouw De Vries,", "", "Uw aanvraag voor een parkeervergunning is toegekend.",
                                 "De vergunning geldt vanaf 1 december 2026 in zone Centrum."]):
        canvas.drawString(25 * mm, top - (125 + 6 * line) * mm, text)
    canvas.showPage()
    canvas.drawString(25 * mm, top - 30 * mm, "Bezwaar maken kan binnen zes weken na de datum van dit besluit.")
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def test_a_newcomers_first_hour(browser, console_server, live_server, local_mailbox, worker):
    context = browser.new_context(base_url=console_server, viewport={"width": WIDE, "height": 800},
                                  device_scale_factor=1, accept_downloads=True)
    refused: list[str] = []
    context.on("console", lambda message: refused.append(message.text)
               if "Content Security Policy" in message.text else None)
    page = context.new_page()
    page.set_default_timeout(15000)
    walk = Walk(page)
    try:
        service_id, key = _first_service(walk)
        _trial_mode(walk, service_id)
        _team_and_going_live(walk, service_id, browser, console_server)
        _spreadsheet(walk, service_id)
        _letter(walk, service_id)
        _api(walk, service_id, key, live_server)
    finally:
        context.close()
    assert refused == [], refused
    assert len(walk.shots) == len(set(walk.shots))  # one name per page: the files do not overwrite each other
    readme = (ROOT / "README.md").read_text()
    assert [name for number, name in enumerate(walk.shots, 1)
            if f"docs/look/first-hour-{number:02d}-{name}-1280.png" not in readme] == []  # the README shows every page


def _first_service(walk: Walk) -> tuple[str, str]:
    """From the set-up link to a service with a key and two templates: its id and the key."""
    page = walk.page
    page.goto("/" + create_setup_link().split("/", 3)[3])
    assert page.inner_text("h1") == "Account aanmaken"
    walk.stop("setup")
    page.fill("#email_address", "beheer@example.gov.nl")
    page.fill("#name", "Eerste Beheerder")
    page.fill("#password", PASSWORD)
    page.fill("#password_confirm", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.url.endswith("/two-factor/set-up")
    walk.stop("second-factor")
    page.check("#auth_type-0")  # an authenticator app
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    secret = page.inner_text("#totp-secret").strip()
    walk.stop("authenticator-app")
    page.fill("#code", pyotp.TOTP(secret).now())
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.url.endswith("/services")
    walk.stop("services")

    with page.expect_navigation():
        page.locator("main").get_by_role("link", name="Dienst toevoegen").click()
    walk.stop("new-service")
    page.fill("#name", "Parkeervergunningen")
    _submit(page, "Dienst toevoegen")
    assert page.inner_text("h1") == "Parkeervergunningen"
    service_id = re.search(r"/services/([0-9a-f-]{36})", page.url)[1]
    walk.stop("service")

    _nav(page, "API-sleutels")
    with page.expect_navigation():
        page.get_by_role("link", name="Een API-sleutel maken").click()
    page.fill("#name", "backend")
    page.check("#key_type-0")  # live: to the team while in trial mode, to anyone once live
    _submit(page, "Doorgaan")
    key = page.inner_text("#api-key").strip()
    assert key.startswith(f"backend-{service_id}-")
    walk.stop("api-key")

    _nav(page, "Sjablonen")
    for kind, label, name, subject, body in (
            ("sms", "Sms", "Afspraak", None, "Beste ((naam)), uw afspraak is op ((dag))."),
            ("email", "E-mail", "Welkom", "Welkom ((naam))", "Beste ((naam)),\n\nFijn dat u er bent.")):
        with page.expect_navigation():
            page.get_by_role("link", name="Nieuw sjabloon", exact=True).click()
        page.get_by_label(label, exact=True).check()
        _submit(page, "Doorgaan")
        assert page.url.endswith(f"/templates/new/{kind}")
        page.fill("#name", name)
        if subject:
            page.fill("#subject", subject)
        page.fill("#body", body)
        _submit(page, "Opslaan")
        assert page.inner_text("h1") == name
        walk.stop(f"template-{kind}")
        _nav(page, "Sjablonen")
    return service_id, key


def _trial_mode(walk: Walk, service_id: str) -> None:
    """The account's mobile number, confirmed by a code the local mailbox shows; a text to yourself;
    a stranger's number refused in Dutch with the link to what trial mode means."""
    page = walk.page
    page.goto("/account")
    with page.expect_navigation():
        page.click("main a:has-text('een mobiel nummer toevoegen')")
    page.fill("#mobile_number", "06 12 34 56 78")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    confirm = page.url
    code = _newest_texted_code(page)
    walk.stop("mailbox-code")
    page.goto(confirm)
    page.fill("#code", code)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.url.endswith("/account") and written_phone_number(OWN_MOBILE) in page.inner_text("main")
    walk.stop("account")

    page.goto(f"/services/{service_id}")
    _nav(page, "Bericht versturen")
    with page.expect_navigation():
        page.click("main a:text-is('Afspraak')")
    with page.expect_navigation():
        page.click("main a:has-text('Naar mijn eigen nummer versturen')")
    page.fill("#placeholder_0", "Eerste")
    page.fill("#placeholder_1", "vrijdag")
    with page.expect_navigation():
        page.click("button[value=preview]")
    walk.stop("send-preview")
    with page.expect_navigation():
        page.click("button[value=send]")
    own = re.search(r"/notifications/([0-9a-f-]{36})$", page.url)[1]
    page.wait_for_function("() => document.querySelector('.notify-message-status').textContent === 'Afgeleverd'",
                           timeout=20000)
    assert Notification.get_by_id(own).to == "+31612345678"
    walk.stop("sent-to-yourself")

    page.goto(f"/services/{service_id}/send/{Notification.get_by_id(own).template_id}/one")
    page.fill("#phone_number", "06 98765432")
    page.fill("#placeholder_0", "Vreemde")
    page.fill("#placeholder_1", "maandag")
    with page.expect_navigation():
        page.click("button[value=preview]")  # refused before the preview: no dead end after it
    error = page.locator("#phone_number-error-1")
    assert error.inner_text() == ("In proefmodus verstuurt deze dienst alleen naar het eigen team en de gastenlijst. "
                                  "Het team is het e-mailadres en het bevestigde mobiele nummer op het account van "
                                  "elk teamlid. Wat proefmodus betekent")
    assert error.get_by_role("link", name="Wat proefmodus betekent").get_attribute("href") == "/trial-mode"
    walk.stop("trial-mode-refusal")


def _team_and_going_live(walk: Walk, service_id: str, browser, console_server: str) -> None:
    """A colleague invited by email, the invitation read in the local mailbox and accepted in their own
    browser; a reply-to address; the request to go live, approved by the platform admin (us)."""
    page = walk.page
    page.goto(f"/services/{service_id}")
    _nav(page, "Teamleden")
    with page.expect_navigation():
        page.get_by_role("link", name="Een teamlid uitnodigen").click()
    page.fill("#email_address", "collega@example.gov.nl")
    walk.stop("invite")
    with page.expect_navigation():
        page.locator("main form button[type=submit]").click()
    assert page.inner_text(".notify-flashes") == ("Uitnodiging verstuurd naar collega@example.gov.nl. Die wordt "
                                                  "teamlid zodra de uitnodiging is geaccepteerd.")
    invited = page.locator("main .notify-invitations li", has_text="collega@example.gov.nl")
    assert invited.get_by_role("button", name="Opnieuw versturen collega@example.gov.nl").count() == 1
    assert invited.get_by_role("button", name="Intrekken collega@example.gov.nl").count() == 1
    walk.stop("invited")
    # Until the colleague accepts, the go-live checklist says whom it waits for, and links to the invitation.
    page.goto(f"/services/{service_id}/service-settings/request-to-go-live")
    waiting = page.locator("main li[data-item=team_member]")
    assert ("Uitnodiging verstuurd naar collega@example.gov.nl, wacht tot die wordt geaccepteerd."
            in waiting.inner_text())
    assert waiting.get_by_role("link").get_attribute("href") == f"/services/{service_id}/users"
    assert page.locator("main li[data-item=reply_to_address] a").get_attribute("href") == (
        f"/services/{service_id}/service-settings/reply-to-addresses/add")
    walk.stop("go-live-waiting")

    with page.expect_navigation():
        page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox").click()
    row = page.locator("main tbody tr", has_text="collega@example.gov.nl")
    deadline = time.monotonic() + 15
    while row.count() == 0:  # the worker sends it: it arrives in a moment
        assert time.monotonic() < deadline, "the invitation did not reach the local mailbox"
        time.sleep(0.2)
        page.reload()
    walk.stop("mailbox")
    with page.expect_navigation():
        row.first.get_by_role("link").click()
    assert page.inner_text("h1") == "Uitnodiging voor Parkeervergunningen"
    text = page.inner_text("pre.notify-mail-text")
    assert "Eerste Beheerder nodigt u uit" in text
    walk.stop("invitation-email")

    colleague = browser.new_context(base_url=console_server).new_page()
    try:
        colleague.goto(path_of_link(text, "invitation"))
        assert "U bent uitgenodigd voor Parkeervergunningen." in colleague.inner_text("main")
        assert_accessible(colleague)
        colleague.fill("#name", "Collega")
        colleague.fill("#password", PASSWORD)
        colleague.fill("#password_confirm", PASSWORD)
        with colleague.expect_navigation():
            colleague.click("main form button[type=submit]")
        assert colleague.url.endswith("/two-factor/set-up")
    finally:
        colleague.context.close()

    page.goto(f"/services/{service_id}/service-settings/reply-to-addresses/add")
    page.fill("#value", "parkeren@example.gov.nl")
    _submit(page, "Opslaan")
    page.goto(f"/services/{service_id}/service-settings/request-to-go-live")
    page.fill("#sms_volume", "20000")
    page.fill("#recipients", "Bewoners met een parkeervergunning")
    walk.stop("go-live-request")
    _submit(page, "Live gaan aanvragen")
    assert "Een platformbeheerder beslist" in page.inner_text("main")
    assert page.inner_text(".notify-flashes") == "U heeft gevraagd om live te gaan. U hoort de beslissing per e-mail."
    page.goto(f"/platform-admin/services/{service_id}/go-live")
    walk.stop("go-live-decision")
    with page.expect_navigation():
        page.click("main form[action$='/go-live/approve'] button")
    assert page.inner_text(".notify-flashes") == "Parkeervergunningen is live; het team heeft een e-mail gekregen"
    page.goto(f"/services/{service_id}")
    assert "Live" in page.inner_text("nav.notify-service-nav")


def _spreadsheet(walk: Walk, service_id: str) -> None:
    """1,000 rows through the real worker and the simulated provider, all of them in the job's page and
    report, the message list, its search and its CSV."""
    page = walk.page
    _nav(page, "Taken")
    with page.expect_navigation():
        page.click("text=Versturen vanuit een spreadsheet")
    with page.expect_navigation():
        page.click("main a:text-is('Afspraak')")
    rows = [[phone(n), f"Persoon {n}", "dinsdag"] for n in range(ROWS)]
    page.set_input_files("#file", files=[{"name": "vergunninghouders.csv", "mimeType": "text/csv",
                                          "buffer": csv_file(["phone number", "naam", "dag"], rows)}])
    walk.stop("upload")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.locator("h1").inner_text() == "1000 berichten versturen", page.inner_text("main")
    walk.stop("upload-check")
    with page.expect_navigation():
        page.click("main form button:has-text('Versturen')")
    page.locator("#count-delivered", has_text=re.compile(r"^1\.?000$")).wait_for(timeout=120_000)
    assert page.locator("#count-failed").inner_text() == "0"
    walk.stop("job")
    report = downloaded_rows(page.locator("#job-report"))
    assert len(report) == ROWS + 1 and report[0][:2] == ["Rijnummer", "Ontvanger"]
    assert {r[1] for r in report[1:]} == {written_phone_number(phone(n)) for n in range(ROWS)}

    _nav(page, "Berichten")
    assert page.locator("table.notify-messages tbody tr").count() == 50
    walk.stop("messages")
    page.fill("#search", phone(ROWS - 1))
    with page.expect_navigation():
        page.click("main form[role=search] button")
    assert page.locator("table.notify-messages tbody tr").count() == 1
    walk.stop("messages-search")
    page.fill("#search", "")
    with page.expect_navigation():
        page.click("main form[role=search] button")
    listed = downloaded_rows(page.locator("a.notify-report-link"))
    recipients = [r[listed[0].index("Ontvanger")] for r in listed[1:]] if "Ontvanger" in listed[0] else []
    assert len(listed) == ROWS + 2, len(listed)  # the spreadsheet's rows and the text to yourself
    assert set(recipients) >= {written_phone_number(phone(n)) for n in range(ROWS)}


def _letter(walk: Walk, service_id: str) -> None:
    page = walk.page
    _nav(page, "Een brief uploaden")
    walk.stop("letter-upload")
    page.set_input_files("#file", files=[{"name": "besluit-parkeervergunning.pdf", "mimeType": "application/pdf",
                                          "buffer": _decision_letter()}])
    with page.expect_navigation():
        page.locator("main form").get_by_role("button", name="Uploaden en controleren").click()
    assert page.inner_text("h1") == "besluit-parkeervergunning.pdf"
    assert page.locator("#letter-pages img").count() == 2
    walk.stop("letter-preview")
    with page.expect_navigation():
        page.get_by_role("button", name="1 brief versturen").click()
    assert "Uw brief is verstuurd" in page.inner_text(".notify-flashes")
    walk.stop("letter-sent")


def _api(walk: Walk, service_id: str, key: str, live_server: str) -> None:
    """A send with the official Python client, seen on the API integration page; the key rotated with
    a day's overlap, both keys working."""
    page = walk.page
    client = NotificationsAPIClient(key, base_url=live_server)
    [template] = [t for t in client.get_all_templates("sms")["templates"]]
    sent = client.send_sms_notification("0687654321", template["id"], {"naam": "Jan", "dag": "woensdag"},
                                        reference="vergunning-2026-17")
    wait_for(lambda: Notification.get_by_id(sent["id"]).status == "delivered")
    _nav(page, "API-koppeling")
    row = page.locator("#api-messages tbody tr").first
    cells = row.locator("td").all_inner_texts()
    assert cells[1].startswith("06 87654321") and cells[2] == "vergunning-2026-17" and cells[3] == "backend (Live)"
    walk.stop("api-integration")

    _nav(page, "API-sleutels")
    walk.stop("api-keys")
    with page.expect_navigation():
        page.locator("main tbody tr", has_text="backend").get_by_role("link", name="Vervangen").click()
    walk.stop("rotate-key")
    page.check("#overlap-2")  # a day
    _submit(page, "Deze sleutel vervangen")
    new_key = page.inner_text("#api-key").strip()
    assert new_key != key and "De oude sleutel blijft werken tot" in page.inner_text("#old-key-expiry")
    walk.stop("rotated-key")
    for either in (key, new_key):
        assert NotificationsAPIClient(either, base_url=live_server).get_all_templates("sms")["templates"]

    # The platform admin's worker dashboard: its widest table fits at 1280 and at 375 px.
    with page.expect_navigation():
        page.locator("nav.notify-nav").get_by_role("link", name="Werkprocessen en wachtrijen").click()
    walk.stop("workers")
