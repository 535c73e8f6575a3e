"""A message's page: what was sent, with which template, by whom, every status change with its time, the
provider, a letter's validation failure and its PDF; the status section follows the message live."""
from __future__ import annotations

import datetime
import re

import pytest

from models.api_key import create_api_key
from models.db import utcnow
from models.job import Job
from models.notification import Notification
from pipeline.domain import statuses
from pipeline.domain.errors import kept
from pipeline.infrastructure.storage import LocalStorage, letter_pdf_key
from pipeline.infrastructure.virus_scan import EicarScanner
from pipeline.stages import status_changes
from pipeline.stages.letters import stages
from pipeline.stages.send_checks import trial_letters_message
from tests.console.browser import assert_accessible
from tests.console.service_pages import amsterdam, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_notification, create_sample_template, create_service, set_chain
from tests.pipeline.test_precompiled import make_pdf


def _text(html: str) -> str:
    """The page's text, tags dropped and spaces collapsed, as a reader sees it."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def viewer(console_app, service):
    member = create_console_user(service=service, permissions=["view_activity"])
    return signed_in_client(console_app, member.user)


def _page(client, service, notification) -> str:
    response = client.get(f"/services/{service.id}/notifications/{notification.id}")
    assert response.status_code == 200
    return _text(response.get_data(as_text=True))


def test_an_sms_sent_with_an_api_key_shows_content_template_key_steps_and_provider(viewer, service):
    template = create_sample_template(service=service, name="Afspraak herinnering", body="Tot morgen ((name))")
    api_key, _ = create_api_key(service, name="Balie-systeem", key_type="live")
    created = utcnow().replace(microsecond=0) - datetime.timedelta(minutes=5)
    sms = create_notification(service=service, template=template, to="06 12345678", normalised_to="+31612345678",
                              body="Tot morgen Jan", reference="afspraak-17", api_key_id=api_key.id,
                              created_at=created)
    status_changes.transition(sms.id, statuses.SENDING, sent_at=created + datetime.timedelta(seconds=2), sent_by="kpn")
    status_changes.transition(sms.id, statuses.DELIVERED, completed_at=created + datetime.timedelta(seconds=9))
    text = _page(viewer, service, sms)
    assert "Tot morgen Jan" in text and "afspraak-17" in text and "06 12345678" in text
    assert "Afspraak herinnering (versie 1)" in text
    assert "API-sleutel Balie-systeem" in text
    moments = [amsterdam(created + datetime.timedelta(seconds=s), seconds=True) for s in (0, 2, 9)]
    assert (f"{moments[0]} Geaccepteerd {moments[1]} Aan de provider gegeven {moments[2]} Afgeleverd"
            in text), text
    assert "Verstuurd via: kpn" in text  # a gateway the operator named, by that name


def test_a_console_send_names_the_user_and_a_job_row_names_the_spreadsheet(viewer, service):
    sender = create_console_user(service=service, permissions=["send_messages"], name="Mieke de Vries")
    by_user = create_notification(service=service, notification_type="email", created_by_user_id=sender.user.id)
    assert "Mieke de Vries (in de console)" in _page(viewer, service, by_user)
    template = create_sample_template(service=service)
    job = Job.create(service=service, template_id=template.id, template_version=1, original_file_name="leden.xlsx",
                     notification_count=3)
    row = create_notification(service=service, template=template, job_id=job.id, job_row_number=2)
    # The row as the spreadsheet numbers it (its header is row 1); the file's name leads to the job.
    page = viewer.get(f"/services/{service.id}/notifications/{row.id}").get_data(as_text=True)
    link = f'<a class="utrecht-link" href="/services/{service.id}/jobs/{job.id}">leden.xlsx</a>'
    assert f"Spreadsheet {link}, rij 4" in page


def test_a_precompiled_letter_that_failed_validation_says_why_and_offers_its_pdf(viewer, service, tmp_path,
                                                                                monkeypatch):
    storage = LocalStorage(tmp_path)
    monkeypatch.setattr("console.messages.views.letter_storage", lambda: storage)

    def outside(canvas, _number):
        canvas.drawString(2, 400, "in de marge")

    data = make_pdf(outside, pages=3)
    letter = create_notification(service=service, notification_type="letter", status="pending-virus-check",
                                 precompiled=True, to="Provided as PDF", reference="brief-9")
    storage.put(letter_pdf_key(letter.id), data)
    assert "Open de brief (PDF)" not in _page(viewer, service, letter)  # not before the virus scan passed it
    assert viewer.get(f"/services/{service.id}/notifications/{letter.id}/letter.pdf").status_code == 404
    assert stages.scan_precompiled(letter.id, storage, EicarScanner()) == "validation-failed"
    text = _page(viewer, service, letter)
    assert "Validatie mislukt" in text
    assert ("Waarom: content outside the printable area on page 1; content outside the printable area on page 2;"
            " content outside the printable area on page 3") in text
    assert "Geüploade brief (PDF)" in text and "Open de brief (PDF)" in text
    assert "Geüploade brief brief-9" in text and "Zoals geadresseerd in de PDF" in text
    assert "Provided as PDF" not in text
    pdf = viewer.get(f"/services/{service.id}/notifications/{letter.id}/letter.pdf")
    assert (pdf.status_code, pdf.mimetype, pdf.data) == (200, "application/pdf", data)


def test_a_letter_without_its_pdf_yet_says_so(viewer, service, tmp_path, monkeypatch):
    monkeypatch.setattr("console.messages.views.letter_storage", lambda: LocalStorage(tmp_path))
    letter = create_notification(service=service, notification_type="letter")
    assert "De PDF van de brief is nog niet klaar." in _page(viewer, service, letter)
    assert viewer.get(f"/services/{service.id}/notifications/{letter.id}/letter.pdf").status_code == 404
    sms = create_notification(service=service)
    assert viewer.get(f"/services/{service.id}/notifications/{sms.id}/letter.pdf").status_code == 404


def test_another_services_message_an_unknown_id_and_one_past_retention_are_not_found(viewer, service):
    theirs = create_notification(service=create_service())
    old = create_notification(service=service, created_at=utcnow() - datetime.timedelta(days=8))
    for notification_id in (theirs.id, old.id, "not-an-id", "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11"):
        for suffix in ("", "/status", "/letter.pdf"):
            path = f"/services/{service.id}/notifications/{notification_id}{suffix}"
            assert viewer.get(path).status_code == 404, path


def test_view_activity_is_required(console_app, service):
    member = create_console_user(service=service, permissions=["send_messages"])
    notification = create_notification(service=service)
    client = signed_in_client(console_app, member.user)
    assert client.get(f"/services/{service.id}/notifications/{notification.id}").status_code == 403


def test_the_status_section_alone_says_whether_it_may_still_change(viewer, service):
    sms = create_notification(service=service, status="sending", sent_at=utcnow(), sent_by="kpn")
    section = viewer.get(f"/services/{service.id}/notifications/{sms.id}/status").get_data(as_text=True)
    assert 'data-final="false"' in section and "<html" not in section
    status_changes.transition(sms.id, statuses.TEMPORARY_FAILURE)
    section = viewer.get(f"/services/{service.id}/notifications/{sms.id}/status").get_data(as_text=True)
    assert 'data-final="true"' in section
    assert "Niet afgeleverd: de telefoon of mailbox was niet bereikbaar" in _text(section)


def test_the_page_follows_the_status_without_a_reload(signed_in_member, service):
    page = signed_in_member
    template = create_sample_template(service=service, template_type="email", name="Bevestiging")
    email = create_notification(service=service, template=template, notification_type="email",
                                to="burger@example.nl", body="Uw aanvraag is binnen", subject="Aanvraag")
    page.goto(f"/services/{service.id}/notifications/{email.id}")
    status = page.locator(".notify-message-status")
    assert status.inner_text() == "Geaccepteerd"
    assert_accessible(page)
    page.evaluate("window.notReloaded = true")
    status_changes.transition(email.id, statuses.SENDING, sent_at=utcnow(), sent_by="smtp")
    page.locator(".notify-message-status", has_text="Bezig met versturen").wait_for()
    status_changes.transition(email.id, statuses.DELIVERED)
    page.locator(".notify-message-status", has_text="Afgeleverd").wait_for()
    assert page.evaluate("window.notReloaded") is True
    assert page.locator(".notify-provider").inner_text() == "E-mailserver (SMTP)"
    assert_accessible(page)
    page.screenshot(path="/tmp/msgs-message-page.png", full_page=True)


def test_the_list_with_a_form_error_passes_axe_in_english(signed_in_member, service):
    page = signed_in_member
    create_notification(service=service, notification_type="letter", postage="first")
    page.goto(f"/language/en?next=/services/{service.id}/notifications")
    assert page.locator("table.notify-messages tbody tr").count() == 1
    page.get_by_role("link", name="A. Person").click()
    assert "Priority" in page.inner_text("main")  # postage "first", named without Royal Mail's classes
    assert_accessible(page)
    page.goto(f"/services/{service.id}/notifications?date_from=2026-11-20&date_to=2026-11-10&status=nonsense")
    assert "The end date must be on or after the start date" in page.inner_text(".notify-error-summary")
    assert_accessible(page)


def test_a_fallback_chain_is_shown_both_ways_with_links_and_a_refusal(viewer, service):
    sms = create_notification(service=service, notification_type="sms", to="06 12345678",
                              normalised_to="+31612345678", status=statuses.PERMANENT_FAILURE)
    email = create_notification(service=service, notification_type="email", to="anna@example.nl",
                                fallback_for=sms.id, status=statuses.PERMANENT_FAILURE,
                                fallback_refused=[kept(trial_letters_message())])
    set_chain(sms.id, fallback_sent_as=email.id)
    sms_page = viewer.get(f"/services/{service.id}/notifications/{sms.id}").get_data(as_text=True)
    assert f'href="/services/{service.id}/notifications/{email.id}"' in sms_page
    assert "Niet afgeleverd, dus dit is in plaats daarvan verstuurd: E-mail naar anna@example.nl" in _text(sms_page)
    email_text = _page(viewer, service, email)
    assert "Verstuurd in plaats van Sms naar 06 12345678 , dat niet afgeleverd kon worden." in email_text
    # Worded in the page's language from the refusal's code, with its link to the trial mode page.
    assert ("Niet afgeleverd, en het volgende bericht is geweigerd: In proefmodus kan deze dienst geen brieven "
            "versturen. Wat proefmodus betekent") in email_text


def test_a_message_with_alternatives_left_says_what_comes_next_until_it_is_final(viewer, service):
    sms = create_notification(service=service, notification_type="sms", to="06 12345678",
                              normalised_to="+31612345678", status=statuses.SENDING,
                              fallback=[{"type": "email", "template_id": "x", "email_address": "a@example.nl"},
                                        {"type": "letter", "template_id": "y"}])
    assert "Als dit bericht niet afgeleverd kan worden, hierna: E-mail, Brief" in _page(viewer, service, sms)
    status_changes.transition(sms.id, statuses.DELIVERED, completed_at=utcnow())
    assert "hierna" not in _page(viewer, service, Notification.get_by_id(sms.id))
