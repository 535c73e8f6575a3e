"""A newcomer's first hour without a dead end (issue 32, part A), in Chromium with axe-core on every page:
messages of every kind in the list, a way to add a service, refusals in the page's language, optional
content for "ja", history in sentences, times on the service's clock, the sent email as sent, a favicon,
pages that fit a 375 px screen, figures and postage in the reader's words."""
from __future__ import annotations

import datetime
import re

from core.services import update_service
from models import audit
from models.db import utcnow
from models.go_live import GoLiveRequest
from models.service import GuestListEntry
from tests.console.browser import assert_accessible, sign_in
from tests.console.service_pages import amsterdam
from tests.console.users import create_console_user
from tests.console.word_breaks import broken_words
from tests.factories import auth_headers, create_key, create_notification, create_sample_template, create_service
from tests.jobs.helpers import csv_file, phone

PHONE_WIDTH = 375


def _shown_ids(page) -> list[str]:
    links = page.locator("table.notify-messages tbody tr td:first-child a")
    return [re.search(r"/notifications/([0-9a-f-]{36})$", href)[1] for href in
            [links.nth(i).get_attribute("href") for i in range(links.count())]]


def _search(page) -> None:
    with page.expect_navigation():
        page.click("main form[role=search] button")


def test_team_key_messages_are_listed_and_test_ones_on_request(signed_in_member, service):
    page = signed_in_member
    now = utcnow()
    live = create_notification(service=service, created_at=now - datetime.timedelta(minutes=1))
    team = create_notification(service=service, key_type="team", created_at=now - datetime.timedelta(minutes=2))
    test = create_notification(service=service, key_type="test", created_at=now - datetime.timedelta(minutes=3))
    page.goto(f"/services/{service.id}/notifications")
    assert _shown_ids(page) == [str(live.id), str(team.id)]
    assert page.locator("#key_type option:checked").inner_text() == "Live- en teamsleutels (geen test)"
    assert_accessible(page)
    page.select_option("#key_type", "test")
    _search(page)
    assert _shown_ids(page) == [str(test.id)]
    page.select_option("#key_type", "team")
    _search(page)
    assert _shown_ids(page) == [str(team.id)]


def test_the_services_list_offers_adding_a_service(page, service):
    sign_in(page, create_console_user(service=service, permissions=["view_activity"]))
    assert_accessible(page)
    page.get_by_role("link", name="Dienst toevoegen").click()
    page.wait_for_url("**/services/new")
    page.fill("#name", "Tweede dienst")
    page.click("main form button[type=submit]")
    page.wait_for_url(re.compile(r".*/services/[0-9a-f-]{36}$"))
    assert page.locator("h1").inner_text() == "Tweede dienst"
    page.goto("/services")
    assert "Tweede dienst" in page.locator("main").inner_text()


def test_refusals_read_as_sentences_with_the_trial_mode_link_once_per_kind(page):
    service = create_service(trial_mode=True)
    member = create_console_user(service=service, permissions=["view_activity", "send_messages"])
    GuestListEntry.create(service=service, recipient="+31612000000", recipient_type="mobile")
    template = create_sample_template(service=service, name="Herinnering", body="Hallo ((name))")
    sign_in(page, member)

    page.goto(f"/services/{service.id}/send/{template.id}/upload")
    rows = [[phone(n), f"Persoon {n}"] for n in range(200)]
    page.set_input_files("#file", files=[{"name": "people.csv", "mimeType": "text/csv",
                                          "buffer": csv_file(["phone number", "name"], rows)}])
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    problems = page.locator("#problems tbody tr")
    assert problems.count() == 1  # 199 refused rows, one kind of problem
    assert problems.first.locator("td").all_inner_texts() == [
        "3–201", "phone number",
        "In proefmodus verstuurt deze dienst alleen naar het eigen team en de gastenlijst. Het team is het "
        "e-mailadres en het bevestigde mobiele nummer op het account van elk teamlid. Wat proefmodus betekent "
        "Uw mobiele nummer aan uw account toevoegen"]
    assert_accessible(page)
    assert page.evaluate("document.scrollingElement.scrollHeight") < 3000
    problems.first.get_by_role("link", name="Wat proefmodus betekent").click()
    page.wait_for_url("**/trial-mode")

    page.goto(f"/language/en?next=/services/{service.id}/send/{template.id}/one")
    page.fill("#phone_number", "06 123")
    page.fill("#placeholder_0", "Ann")
    with page.expect_navigation():
        page.click("main form button[value=preview]")
    assert page.locator("#phone_number-error-1").inner_text() == "The number has too few digits"
    assert "phone_number" not in page.locator("main").inner_text()
    assert_accessible(page)
    page.fill("#phone_number", "06 98765432")
    with page.expect_navigation():
        page.click("main form button[value=preview]")  # refused before the preview
    assert page.locator("#phone_number-error-1").inner_text() == (
        "In trial mode this service sends only to its team and its guest list")
    ways = page.locator("#trial-mode-ways")  # the links, apart from the error (its summary links to the field)
    assert ways.get_by_role("link", name="Add your mobile number to your account").get_attribute("href") == (
        f"/account/mobile?next=/services/{service.id}/send/{template.id}/one")
    assert ways.get_by_role("link", name="What trial mode means").get_attribute("href") == "/trial-mode"
    assert "http" not in page.locator("main").inner_text()
    assert_accessible(page)


def test_optional_content_shows_for_ja_and_in_the_editors_preview(client, signed_in_member, service):
    template = create_sample_template(service=service, body="Uw afspraak is morgen.((parkeren?? Parkeren is gratis.))")
    key = create_key(service=service)
    shown = {}
    for answer in ("ja", "JA", "Ja ", "yes", "j", "nee", "no", ""):
        sent = client.post("/v2/notifications/sms", headers=auth_headers(key), json={
            "phone_number": "+31612345678", "template_id": str(template.id),
            "personalisation": {"parkeren": answer}})
        assert sent.status_code == 201, sent.json
        shown[answer] = sent.json["content"]["body"]
    assert {answer for answer, body in shown.items() if body.endswith("Parkeren is gratis.")} == {
        "ja", "JA", "Ja ", "yes", "j"}
    assert shown["nee"] == "Uw afspraak is morgen."

    page = signed_in_member
    page.goto(f"/services/{service.id}/templates/{template.id}/edit")
    preview = page.locator("[data-testid=sms-body]")
    assert preview.locator("mark").all_inner_texts() == ["((parkeren?? Parkeren is gratis.))"]
    assert "ja, j, yes, y, true of 1" in page.locator("main").inner_text()  # the guide names "ja" first
    assert_accessible(page)


def test_history_reads_as_sentences_and_go_live_times_are_formatted(page, service, platform_admin):
    update_service(str(service.id), trial_mode=True)
    GoLiveRequest.create(service=service, requested_by_kind="user", requested_by_id="1", requested_by_name="Ann",
                         requested_at=datetime.datetime(2026, 11, 26, 6, 9, 22, 467092))
    update_service(str(service.id), sms_daily_limit=300000)
    with audit.acting_as(audit.Actor("user", "1", "ann@example.nl")):
        audit.record(service.id, "job.create", after={"file": "leden.csv", "rows": 1200, "scheduled_for": None})
    sign_in(page, platform_admin)
    page.goto("/platform-admin/go-live-requests")
    assert "gevraagd door Ann op 26 nov 2026 07:09 CET" in page.locator("main").inner_text()
    assert "2026-11-26T" not in page.content()
    assert_accessible(page)
    page.goto(f"/platform-admin/services/{service.id}/go-live")
    assert "26 nov 2026 07:09 CET" in page.locator("main").inner_text()
    with page.expect_navigation():
        page.click("main form[action$='/go-live/approve'] button")

    page.goto(f"/services/{service.id}/history")
    changes = page.locator(".notify-history-changes li").all_inner_texts()
    assert "Proefmodus gewijzigd van ja in nee" in changes
    assert "Proefmodus gewijzigd van nee in ja" in changes
    assert "Sms-berichten per dag gewijzigd van 250.000 in 300.000" in changes
    assert ["Bestand: leden.csv", "Rijen: 1.200"] == [c for c in changes if c.startswith(("Bestand", "Rijen"))]
    text = page.locator("main").inner_text()
    assert "trial_mode" not in text and "scheduled_for" not in text and "→" not in text
    assert_accessible(page)


def test_times_are_shown_and_scheduled_on_the_services_clock(signed_in_member, service):
    page = signed_in_member
    yesterday = utcnow().date() - datetime.timedelta(days=1)
    late = datetime.datetime.combine(yesterday, datetime.time(23, 30))  # already today in Amsterdam
    message = create_notification(service=service, created_at=late)
    page.goto(f"/services/{service.id}/notifications")
    assert page.locator("table.notify-messages tbody tr td").last.inner_text() == amsterdam(late)
    page.fill("#date_from", yesterday.isoformat())
    page.fill("#date_to", yesterday.isoformat())
    _search(page)
    assert _shown_ids(page) == []
    today = (yesterday + datetime.timedelta(days=1)).isoformat()
    page.fill("#date_from", today)
    page.fill("#date_to", today)
    _search(page)
    assert _shown_ids(page) == [str(message.id)]

    page.goto(f"/services/{service.id}/service-settings")
    page.get_by_role("link", name="Wijzigen Tijdzone").click()
    assert_accessible(page)
    page.fill("#time_zone", "Mars/Olympus_Mons")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "Vul een tijdzone in met haar naam" in page.locator(".notify-error-summary").inner_text()
    assert_accessible(page)
    page.fill("#time_zone", "America/Curacao")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/service-settings")
    assert "America/Curacao" in page.locator("main").inner_text()
    page.goto(f"/services/{service.id}/notifications/{message.id}")
    assert re.search(r"\d{1,2} \w+\.? \d{4} 19:30:00 AST", page.locator("main").inner_text())

    template = create_sample_template(service=service, body="Tot later")
    page.goto(f"/services/{service.id}/send/{template.id}/upload")
    page.set_input_files("#file", files=[{"name": "later.csv", "mimeType": "text/csv",
                                          "buffer": csv_file(["phone number"], [[phone(1)]])}])
    page.click("main form button[type=submit]")
    page.wait_for_url("**/upload/*")
    first_slot = page.locator("#when option").nth(1)
    value = datetime.datetime.fromisoformat(first_slot.get_attribute("value"))  # stored in UTC
    assert value.minute == 0 and first_slot.inner_text().endswith(" AST")
    assert first_slot.inner_text().split()[-2] == f"{(value.hour - 4) % 24:02d}:00"
    assert_accessible(page)


def test_a_sent_email_shows_as_sent_and_the_appearance_preview_shows(signed_in_member, service):
    page = signed_in_member
    template = create_sample_template(service=service, template_type="email", subject="Uw afspraak",
                                      body="# Welkom ((name))\n\n* neem uw pas mee\n* kom op tijd")
    email = create_notification(service=service, template=template, personalisation={"name": "Ann"},
                                body="# Welkom Ann\n\n* neem uw pas mee\n* kom op tijd", subject="Uw afspraak")
    page.goto(f"/services/{service.id}/notifications/{email.id}")
    frame = page.frame_locator("iframe.notify-email-preview")
    assert frame.locator("h2").inner_text() == "Welkom Ann"
    assert frame.locator("li").all_inner_texts() == ["neem uw pas mee", "kom op tijd"]
    assert "# Welkom" not in page.locator("main").inner_text()
    assert_accessible(page)

    page.goto(f"/services/{service.id}/service-settings/appearance")
    assert "Ann" not in page.frame_locator("iframe.notify-appearance-preview").locator("body").inner_text()
    assert page.frame_locator("iframe.notify-appearance-preview").locator("body").inner_text().strip()
    assert_accessible(page)


def test_favicon_figures_postage_and_pages_that_fit_a_phone(browser, console_server, service, platform_admin):
    context = browser.new_context(base_url=console_server, viewport={"width": PHONE_WIDTH, "height": 800})
    page = context.new_page()
    try:
        missing: list[str] = []
        page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
        sign_in(page, platform_admin)
        icon = page.locator("link[rel=icon]").get_attribute("href")
        assert page.request.get(icon).status == 200
        assert page.request.get("/favicon.ico").status == 200
        assert page.locator("header .notify-logo").inner_text() == "Notify NL"

        now = utcnow()
        for n in range(3):
            create_notification(service=service, to=f"+3161234567{n}", reference=f"een-lange-referentie-{n}" * 3,
                                created_at=now - datetime.timedelta(minutes=n))
        letter = create_notification(service=service, notification_type="letter", postage="first")
        for path in ("/services", f"/services/{service.id}/notifications", f"/services/{service.id}/service-settings",
                     f"/services/{service.id}/history", "/platform-admin/workers"):
            page.goto(path)
            assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE_WIDTH, path
            assert_accessible(page)
        page.goto(f"/services/{service.id}/notifications")
        table_box = page.locator("main table").first
        # The table fits the phone (each row a block of labelled values): nothing is cut off behind a scroll.
        assert table_box.evaluate("box => box.scrollWidth <= box.clientWidth + 1")
        assert broken_words(page) == []

        page.goto("/platform-admin/workers")
        cells = page.locator("#queues tbody td").all_inner_texts()
        assert cells and not [cell for cell in cells if re.fullmatch(r"\d+\.\d+", cell)]  # "0", not "0.0"
        page.goto(f"/services/{service.id}/service-settings")
        assert "250.000" in page.locator("main").inner_text()
        page.goto(f"/services/{service.id}/notifications/{letter.id}")
        assert "Prioriteit" in page.locator("main").inner_text()
        assert "klas" not in page.locator("main").inner_text()
        assert missing == []
    finally:
        context.close()
