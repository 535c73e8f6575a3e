"""Cancelling from a message's page: a letter sent through the API, cancelled after a confirmation, never
reaches the printer when the print batch runs after; too-late cancels are refused in the page's words."""
from __future__ import annotations

import datetime
import json

from models.db import utcnow
from models.notification import Notification
from pipeline.infrastructure.print_provider import SimulatedPrintProvider
from pipeline.infrastructure.storage import letter_storage
from pipeline.stages.letters import printing, stages
from tests.conftest import status_of
from tests.console.browser import assert_accessible
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import auth_headers, create_key, create_notification, create_sample_template

ADDRESS = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234 AB Amsterdam"}


def _letter_sent_through_the_api(client, service, reference: str) -> str:
    template = create_sample_template(service=service, template_type="letter", name="Herinnering",
                                      body="Beste ((name)), uw afspraak staat vast.")
    answer = client.post("/v2/notifications/letter", headers=auth_headers(create_key(service=service)), json={
        "template_id": str(template.id), "personalisation": {**ADDRESS, "name": "Anna"}, "reference": reference})
    assert answer.status_code == 201, answer.get_json()
    notification_id = answer.get_json()["id"]
    assert stages.create_letter_pdf(notification_id, letter_storage()) == "rendered"
    return notification_id


def _print_batch(tmp_path) -> list[str]:
    """Run the print batch as the periodic job does; the ids the (simulated) printer was handed."""
    provider = SimulatedPrintProvider(tmp_path / "printer")
    handed = []
    for batch_id, _ in printing.claim_batches():
        printing.send_batch(batch_id, provider, letter_storage())
        answer = json.loads((tmp_path / "printer" / "inbox" / f"{batch_id}.json").read_text())
        handed += [letter["id"] for letter in answer["letters"]]
    return handed


def test_cancel_a_letter_in_the_browser_and_it_never_reaches_the_printer(signed_in_member, service, client,
                                                                        tmp_path):
    page = signed_in_member
    cancelled = _letter_sent_through_the_api(client, service, "brief-annuleren")
    kept = _letter_sent_through_the_api(client, service, "brief-houden")
    page.goto(f"/services/{service.id}/notifications/{cancelled}")
    page.get_by_role("link", name="Deze brief annuleren").click()
    page.get_by_role("heading", name="Weet u zeker dat u deze brief wilt annuleren?").wait_for()
    assert_accessible(page)
    page.get_by_role("button", name="Ja, annuleren").click()
    page.get_by_text("Brief geannuleerd. Hij wordt niet gedrukt.").wait_for()
    assert page.locator(".notify-message-status").inner_text() == "Geannuleerd"
    assert page.get_by_role("link", name="Deze brief annuleren").count() == 0
    assert_accessible(page)
    page.screenshot(path="/tmp/msgs-cancelled-letter.png", full_page=True)

    assert _print_batch(tmp_path) == [kept]
    assert (status_of(cancelled), status_of(kept)) == ("cancelled", "sending")
    assert _print_batch(tmp_path) == []  # and not in a later batch either


def test_a_letter_claimed_by_the_print_batch_is_refused_on_the_page(console_app, service, client, tmp_path):
    member = create_console_user(service=service, permissions=["view_activity", "send_messages"])
    browser = signed_in_client(console_app, member.user)
    letter_id = _letter_sent_through_the_api(client, service, "te-laat")
    page_path = f"/services/{service.id}/notifications/{letter_id}"
    token = csrf_token(browser, f"{page_path}/cancel")  # the confirmation was open while the batch ran
    printing.claim_batches(now=datetime.datetime(2026, 11, 24, 9, 30))
    assert "Deze brief annuleren" not in browser.get(page_path).get_data(as_text=True)
    answer = browser.post(f"{page_path}/cancel", data={"csrf_token": token}, follow_redirects=True)
    assert ("Het is te laat om deze brief te annuleren. Het drukken is begonnen op 24 nov 2026 10:30 CET."
            in answer.get_data(as_text=True))
    assert status_of(letter_id) == "created"


def test_a_scheduled_sms_is_cancelled_and_one_sent_straight_away_offers_no_cancel(console_app, service):
    member = create_console_user(service=service, permissions=["view_activity", "send_messages", "manage_service"])
    browser = signed_in_client(console_app, member.user)
    scheduled = create_notification(service=service, scheduled_for=utcnow() + datetime.timedelta(hours=5))
    path = f"/services/{service.id}/notifications/{scheduled.id}"
    assert "Dit geplande bericht annuleren" in browser.get(path).get_data(as_text=True)
    answer = browser.post(f"{path}/cancel", data={"csrf_token": csrf_token(browser, f"{path}/cancel")},
                          follow_redirects=True)
    assert "Bericht geannuleerd. Het wordt niet verstuurd." in answer.get_data(as_text=True)
    assert Notification.get_by_id(scheduled.id).status == "cancelled"
    history = browser.get(f"/services/{service.id}/history").get_data(as_text=True)
    assert "Bericht geannuleerd" in history and f"{member.email_address} (console)" in history
    again = browser.get(f"{path}/cancel", follow_redirects=True).get_data(as_text=True)
    assert "Dit bericht is al geannuleerd." in again

    straight = create_notification(service=service)
    path = f"/services/{service.id}/notifications/{straight.id}"
    assert "annuleren" not in browser.get(path).get_data(as_text=True)
    refused = browser.get(f"{path}/cancel", follow_redirects=True).get_data(as_text=True)
    assert "Alleen een gepland bericht kan geannuleerd worden. Dit bericht is meteen verstuurd." in refused


def test_cancelling_needs_the_send_messages_permission(console_app, service):
    viewer = create_console_user(service=service, permissions=["view_activity"])
    browser = signed_in_client(console_app, viewer.user)
    letter = create_notification(service=service, notification_type="letter")
    path = f"/services/{service.id}/notifications/{letter.id}"
    assert "Deze brief annuleren" not in browser.get(path).get_data(as_text=True)
    assert browser.get(f"{path}/cancel").status_code == 403
    assert browser.post(f"{path}/cancel").status_code in (400, 403)
    assert status_of(letter.id) == "created"
