"""A newcomer's first hour as one walk in Chromium (issues 32 and 51), as `python3 dev.py run` leaves it: no
SMTP_URL (the local mailbox catches the email), no SMS gateway (the simulated provider), a real worker.

From the printed set-up link to a text delivered to your own number, counted as a person meets it (issue
51: at most 8 page loads and 5 forms): the account with its mobile number, the code texted to it read in
the local mailbox (it confirms the number and becomes the second factor), the first service (it starts
with example templates), and from its page a test text to yourself in one step. Then: an API key, a
template for the spreadsheet, the refusal of a stranger's number in trial mode with its ways on, a team
member invited by email (the invitation read in the local mailbox, its link followed), a reply-to address
added from the go-live checklist and back to it, going live, a 1,000-row spreadsheet whose messages all
reach the message list, its search and its CSV, the job's report, a precompiled letter checked,
previewed and sent, the API integration page after a send with the official Python client, a key rotated
with an overlap, and the worker dashboard.

The invitation comes before the spreadsheet, not last: going live needs a team member other than you,
and a service in trial mode can neither send to 1,000 strangers nor send letters.

Every page the walk loads is checked with axe-core at 1280 and 375 px and must fit the screen at both. With
LOOK_UPDATE_DOCS=1 (as tests/look) each stop is also photographed at 1280 and 375 px into docs/look/
(first-hour-NN-<page>-<width>.png, shown in docs/first-hour.md); otherwise nothing is compared pixel-wise.
"""
from __future__ import annotations

import io
import re
import time

from notifications_python_client.notifications import NotificationsAPIClient
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from core.accounts import create_setup_link
from models.notification import Notification
from pipeline.domain.recipients import written_phone_number
from tests.conftest import wait_for
from tests.console.browser import assert_accessible, code_in, downloaded_rows, path_of_link
from tests.console.walk_stops import ROOT, WIDE, Steps, Walk
from tests.jobs.helpers import csv_file, phone

ROWS = 1000
OWN_MOBILE = "+31612345678"
PASSWORD = "een lang genoeg wachtwoord"
# Issue 51: from opening the set-up link to a delivered text, at most this many page loads and forms.
MOST_STEPS = Steps(loads=8, forms=5)


def _click(walk: Walk, target) -> None:
    """Follow a link or press a button (a Playwright locator) that loads a page, and check that page."""
    with walk.page.expect_navigation():
        target.click()
    walk.look()


def _submit(walk: Walk, label: str) -> None:
    _click(walk, walk.page.locator("main").get_by_role("button", name=label, exact=True))


def _nav(walk: Walk, label: str) -> None:
    _click(walk, walk.page.locator("nav.notify-service-nav").get_by_role("link", name=label, exact=True))


def _texted_code(walk: Walk) -> str:
    """From a page waiting for a code, the code in the local mailbox (no SMS gateway), back on that page."""
    page = walk.page
    waiting = page.url
    _click(walk, page.locator("main").get_by_role("link", name="De sms in de lokale mailbox bekijken"))
    texts = page.locator("main table").last
    assert written_phone_number(OWN_MOBILE) in texts.inner_text()  # "06 12345678", as every page writes it
    # On the clock of the platform's default zone, named (the page is no service's).
    assert re.fullmatch(r".+ \d\d:\d\d:\d\d CES?T", texts.locator("tbody tr td").last.inner_text())
    code = code_in(texts.locator("tbody tr").first.inner_text())
    walk.stop("mailbox-code")
    _click(walk, page.locator("main").get_by_role("link", name="Terug naar het invullen van de code"))
    assert page.url == waiting
    return code


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
        service_id = _first_text(walk)
        key = _api_key_and_template(walk, service_id)
        _trial_mode_refusal(walk, service_id)
        _team_and_going_live(walk, service_id, browser, console_server)
        _spreadsheet(walk, service_id)
        _letter(walk, service_id)
        _api(walk, service_id, key, live_server)
    finally:
        context.close()
    assert refused == [], refused
    assert len(walk.shots) == len(set(walk.shots))  # one name per page: the files do not overwrite each other
    first_hour = (ROOT / "docs" / "first-hour.md").read_text()
    assert [name for number, name in enumerate(walk.shots, 1)
            if f"(look/first-hour-{number:02d}-{name}-1280.png)" not in first_hour] == []  # the page shows every one


def _first_text(walk: Walk) -> str:
    """From the set-up link to a text delivered to your own number, within MOST_STEPS: the service's id."""
    page = walk.page
    start = walk.steps()
    page.goto("/" + create_setup_link().split("/", 3)[3])
    assert page.inner_text("h1") == "Account aanmaken"
    walk.stop("setup")
    page.fill("#email_address", "beheer@example.gov.nl")
    page.fill("#name", "Eerste Beheerder")
    page.fill("#mobile_number", "06 12 34 56 78")
    page.fill("#password", PASSWORD)
    page.fill("#password_confirm", PASSWORD)
    _click(walk, page.locator("main form button[type=submit]"))
    # The code texted to the number confirms it and becomes the second factor, as Notify's registration.
    assert page.url.endswith("/two-factor/set-up/text-message")
    assert "06 12 34 56 78".replace(" ", "") in page.inner_text("main").replace(" ", "").replace("+316", "06")
    walk.stop("code-texted")
    page.fill("#code", _texted_code(walk))
    _submit(walk, "Bevestigen")
    # Nothing to choose from yet: the first service is the next step, the second factor confirmed above it.
    assert page.url.endswith("/services/new")
    assert page.inner_text(".notify-flashes") == (
        "Uw mobiele nummer is bevestigd en uw tweede factor is ingesteld: bij het inloggen vult u een code in die "
        "we u per sms sturen.")
    walk.stop("new-service")
    page.fill("#name", "Parkeervergunningen")
    assert page.is_checked("#examples")
    _submit(walk, "Dienst toevoegen")
    assert page.inner_text("h1") == "Parkeervergunningen"
    service_id = re.search(r"/services/([0-9a-f-]{36})", page.url)[1]
    walk.stop("service")
    test = page.locator("main section.notify-test-to-yourself")
    assert "Beste ((naam)), dit is een test-sms." in test.inner_text()
    test.get_by_label("naam").fill("Eerste")
    _click(walk, test.get_by_role("button", name="Naar uzelf versturen"))
    own = re.search(r"/notifications/([0-9a-f-]{36})$", page.url)[1]
    page.wait_for_function("() => document.querySelector('.notify-message-status').textContent === 'Afgeleverd'",
                           timeout=20000)
    taken = walk.steps() - start
    assert taken.loads <= MOST_STEPS.loads and taken.forms <= MOST_STEPS.forms, taken
    sent = Notification.get_by_id(own)
    assert (sent.to, sent.body) == (OWN_MOBILE,
                                    "Beste Eerste, dit is een test-sms. U past de tekst aan onder Sjablonen.")
    walk.stop("sent-to-yourself")
    return service_id


def _api_key_and_template(walk: Walk, service_id: str) -> str:
    """An API key, and a template of our own beside the examples (the spreadsheet's): the key."""
    page = walk.page
    _nav(walk, "API-sleutels")
    _click(walk, page.get_by_role("link", name="Een API-sleutel maken"))
    page.fill("#name", "backend")
    page.check("#key_type-0")  # live: to the team while in trial mode, to anyone once live
    _submit(walk, "Doorgaan")
    key = page.inner_text("#api-key").strip()
    assert key.startswith(f"backend-{service_id}-")
    walk.stop("api-key")

    _nav(walk, "Sjablonen")
    assert [name for name in ("Voorbeeld-sms", "Voorbeeld-e-mail", "Voorbeeldbrief")
            if page.locator("main").get_by_role("link", name=name, exact=True).count() != 1] == []
    walk.stop("templates")
    _click(walk, page.get_by_role("link", name="Nieuw sjabloon", exact=True))
    page.get_by_label("Sms", exact=True).check()
    _submit(walk, "Doorgaan")
    assert page.url.endswith("/templates/new/sms")
    page.fill("#name", "Afspraak")
    page.fill("#body", "Beste ((naam)), uw afspraak is op ((dag)).")
    _submit(walk, "Opslaan")
    assert page.inner_text("h1") == "Afspraak"
    walk.stop("template-sms")
    return key


def _trial_mode_refusal(walk: Walk, service_id: str) -> None:
    """A stranger's number refused in trial mode: what is wrong beside the field and in the error summary
    (a link to the field), and below it, once, the ways on, each a link of its own."""
    page = walk.page
    _nav(walk, "Bericht versturen")
    _click(walk, page.locator("main a:text-is('Voorbeeld-sms')"))
    page.fill("#phone_number", "06 98765432")
    page.fill("#placeholder_0", "Vreemde")
    _click(walk, page.locator("button[value=preview]"))  # refused before the preview: no dead end after it
    refusal = "In proefmodus verstuurt deze dienst alleen naar het eigen team en de gastenlijst"
    assert page.inner_text("#phone_number-error-1") == refusal
    summary = page.locator(".notify-error-summary li")
    assert summary.all_inner_texts() == [refusal]
    assert summary.get_by_role("link").get_attribute("href") == "#phone_number"
    ways = page.locator("#trial-mode-ways")
    expected = {"De ontvanger op de gastenlijst zetten": f"/services/{service_id}/guest-list",
                "De ontvanger uitnodigen voor het team": f"/services/{service_id}/users/invite",
                "Wat proefmodus betekent": "/trial-mode"}
    assert {name: ways.get_by_role("link", name=name, exact=True).get_attribute("href")
            for name in expected} == expected
    assert page.locator("main").inner_text().count(refusal) == 2  # beside the field and in the summary, no more
    walk.stop("trial-mode-refusal")


def _team_and_going_live(walk: Walk, service_id: str, browser, console_server: str) -> None:
    """A colleague invited by email, the invitation read in the local mailbox and accepted in their own
    browser; a reply-to address added from the go-live checklist, back to it; the request to go live,
    approved by the platform admin (us)."""
    page = walk.page
    _click(walk, page.locator("nav.notify-service-nav").get_by_role("link", name="Parkeervergunningen"))
    _nav(walk, "Teamleden")
    _click(walk, page.get_by_role("link", name="Een teamlid uitnodigen"))
    page.fill("#email_address", "collega@example.gov.nl")
    walk.stop("invite")
    _click(walk, page.locator("main form button[type=submit]"))
    assert page.inner_text(".notify-flashes") == ("Uitnodiging verstuurd naar collega@example.gov.nl. Die wordt "
                                                  "teamlid zodra de uitnodiging is geaccepteerd.")
    invited = page.locator("main .notify-invitations li", has_text="collega@example.gov.nl")
    assert invited.get_by_role("button", name="Opnieuw versturen collega@example.gov.nl").count() == 1
    assert invited.get_by_role("button", name="Intrekken collega@example.gov.nl").count() == 1
    walk.stop("invited")
    # Until the colleague accepts, the go-live checklist says whom it waits for, and links to the invitation.
    checklist = f"/services/{service_id}/service-settings/request-to-go-live"
    page.goto(checklist)
    waiting = page.locator("main li[data-item=team_member]")
    assert ("Uitnodiging verstuurd naar collega@example.gov.nl, wacht tot die wordt geaccepteerd."
            in waiting.inner_text())
    assert waiting.get_by_role("link").get_attribute("href") == f"/services/{service_id}/users"
    assert "in orde" in page.inner_text("main li[data-item=template]")  # the examples count
    walk.stop("go-live-waiting")

    _click(walk, page.locator("nav.notify-nav").get_by_role("link", name="Lokale mailbox"))
    row = page.locator("main tbody tr", has_text="collega@example.gov.nl")
    deadline = time.monotonic() + 15
    while row.count() == 0:  # the worker sends it: it arrives in a moment
        assert time.monotonic() < deadline, "the invitation did not reach the local mailbox"
        time.sleep(0.2)
        page.reload()
    walk.stop("mailbox")
    _click(walk, row.first.get_by_role("link"))
    assert page.inner_text("h1") == "Uitnodiging voor Parkeervergunningen"
    text = page.inner_text("pre.notify-mail-text")
    assert "Eerste Beheerder nodigt u uit" in text
    walk.stop("invitation-email")
    _colleague_accepts(path_of_link(text, "invitation"), browser, console_server)

    page.goto(checklist)
    _click(walk, page.locator("main li[data-item=reply_to_address]").get_by_role("link"))
    page.fill("#value", "parkeren@example.gov.nl")
    walk.stop("reply-to")
    _submit(walk, "Opslaan")
    assert page.url.endswith(checklist) and page.inner_text(".notify-flashes") == "Opgeslagen"
    assert "in orde" in page.inner_text("main li[data-item=reply_to_address]")
    page.fill("#sms_volume", "20000")
    page.fill("#recipients", "Bewoners met een parkeervergunning")
    walk.stop("go-live-request")
    _submit(walk, "Live gaan aanvragen")
    assert "Een platformbeheerder beslist" in page.inner_text("main")
    assert page.inner_text(".notify-flashes") == "U heeft gevraagd om live te gaan. U hoort de beslissing per e-mail."
    _click(walk, page.locator("nav.notify-nav").get_by_role("link", name="Aanvragen om live te gaan"))
    _click(walk, page.locator("main").get_by_role("link", name=re.compile("Parkeervergunningen")))
    walk.stop("go-live-decision")
    _click(walk, page.locator("main form[action$='/go-live/approve'] button"))
    assert page.inner_text(".notify-flashes") == "Parkeervergunningen is live; het team heeft een e-mail gekregen"
    page.goto(f"/services/{service_id}")
    assert "Live" in page.inner_text("nav.notify-service-nav")


def _colleague_accepts(link: str, browser, console_server: str) -> None:
    """The invited colleague, in their own browser, makes an account without a mobile number: they choose
    their second factor."""
    colleague = browser.new_context(base_url=console_server).new_page()
    try:
        colleague.goto(link)
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


def _spreadsheet(walk: Walk, service_id: str) -> None:
    """1,000 rows through the real worker and the simulated provider, all of them in the job's page and
    report, the message list, its search and its CSV."""
    page = walk.page
    _nav(walk, "Taken")
    _click(walk, page.locator("text=Versturen vanuit een spreadsheet"))
    _click(walk, page.locator("main a:text-is('Afspraak')"))
    rows = [[phone(n), f"Persoon {n}", "dinsdag"] for n in range(ROWS)]
    page.set_input_files("#file", files=[{"name": "vergunninghouders.csv", "mimeType": "text/csv",
                                          "buffer": csv_file(["phone number", "naam", "dag"], rows)}])
    walk.stop("upload")
    _click(walk, page.locator("main form button[type=submit]"))
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

    _nav(walk, "Berichten")
    assert page.locator("table.notify-messages tbody tr").count() == 50
    walk.stop("messages")
    page.fill("#search", phone(ROWS - 1))
    _click(walk, page.locator("main form[role=search] button"))
    assert page.locator("table.notify-messages tbody tr").count() == 1
    walk.stop("messages-search")
    page.fill("#search", "")
    _click(walk, page.locator("main form[role=search] button"))
    listed = downloaded_rows(page.locator("a.notify-report-link"))
    recipients = [r[listed[0].index("Ontvanger")] for r in listed[1:]] if "Ontvanger" in listed[0] else []
    assert len(listed) == ROWS + 2, len(listed)  # the spreadsheet's rows and the text to yourself
    assert set(recipients) >= {written_phone_number(phone(n)) for n in range(ROWS)}


def _letter(walk: Walk, service_id: str) -> None:
    page = walk.page
    _nav(walk, "Een brief uploaden")
    walk.stop("letter-upload")
    page.set_input_files("#file", files=[{"name": "besluit-parkeervergunning.pdf", "mimeType": "application/pdf",
                                          "buffer": _decision_letter()}])
    _click(walk, page.locator("main form").get_by_role("button", name="Uploaden en controleren"))
    assert page.inner_text("h1") == "besluit-parkeervergunning.pdf"
    assert page.locator("#letter-pages img").count() == 2
    walk.stop("letter-preview")
    _click(walk, page.get_by_role("button", name="1 brief versturen"))
    assert "Uw brief is verstuurd" in page.inner_text(".notify-flashes")
    walk.stop("letter-sent")


def _api(walk: Walk, service_id: str, key: str, live_server: str) -> None:
    """A send with the official Python client, seen on the API integration page; the key rotated with
    a day's overlap, both keys working."""
    page = walk.page
    client = NotificationsAPIClient(key, base_url=live_server)
    [template] = [t for t in client.get_all_templates("sms")["templates"] if t["name"] == "Afspraak"]
    sent = client.send_sms_notification("0687654321", template["id"], {"naam": "Jan", "dag": "woensdag"},
                                        reference="vergunning-2026-17")
    wait_for(lambda: Notification.get_by_id(sent["id"]).status == "delivered")
    _nav(walk, "API-koppeling")
    row = page.locator("#api-messages tbody tr").first
    cells = row.locator("td").all_inner_texts()
    assert cells[1].startswith("06 87654321") and cells[2] == "vergunning-2026-17" and cells[3] == "backend (Live)"
    walk.stop("api-integration")

    _nav(walk, "API-sleutels")
    walk.stop("api-keys")
    _click(walk, page.locator("main tbody tr", has_text="backend").get_by_role("link", name="Vervangen"))
    walk.stop("rotate-key")
    page.check("#overlap-2")  # a day
    _submit(walk, "Deze sleutel vervangen")
    new_key = page.inner_text("#api-key").strip()
    assert new_key != key and "De oude sleutel blijft werken tot" in page.inner_text("#old-key-expiry")
    walk.stop("rotated-key")
    for either in (key, new_key):
        assert NotificationsAPIClient(either, base_url=live_server).get_all_templates("sms")["templates"]

    # The platform admin's worker dashboard: its tasks in words, every column fitting at 1280 and 375 px.
    _click(walk, page.locator("nav.notify-nav").get_by_role("link", name="Werkprocessen en wachtrijen"))
    assert "Verstuurt een sms" in page.inner_text("#stages")
    walk.stop("workers")
