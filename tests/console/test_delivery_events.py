"""The delivery events page: complaints, returned letters and unsubscribe requests recorded by the real
pipeline stages appear for the service's members, newest first per kind, with the CSV report."""
from __future__ import annotations

import datetime
import json

from babel.dates import format_date

from models.db import utcnow
from models.notification_event import NotificationEvent
from models.service import Service
from pipeline.infrastructure.print_provider import DirectoryPrintProvider
from pipeline.infrastructure.providers.email.events import COMPLAINT, EmailEvent
from pipeline.stages.email_events import apply_email_events
from pipeline.stages.letters import returns
from pipeline.stages.unsubscribe import record_request
from tests.console.browser import assert_accessible, downloaded_rows
from tests.console.service_pages import amsterdam, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_notification, create_sample_template, create_service


def _return_letter(tmp_path, notification, returned_on: str) -> None:
    folder = tmp_path / "inbox" / "returned"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "r.json").write_text(json.dumps({"batch": "r1", "returned_on": returned_on,
                                               "letters": [{"id": str(notification.id)}]}))
    assert returns.apply_returns(DirectoryPrintProvider(tmp_path)) == 1


def test_another_services_page_is_not_found_and_view_activity_is_required(console_app):
    mine, theirs = create_service(name="Mine"), create_service(name="Theirs")
    member = create_console_user(service=mine, permissions=["view_activity"])
    client = signed_in_client(console_app, member.user)
    for path in (f"/services/{theirs.id}/delivery-events", f"/services/{theirs.id}/delivery-events?kind=unsubscribe",
                 f"/services/{theirs.id}/delivery-events/unsubscribe-requests.csv"):
        assert client.get(path).status_code == 404, path
    assert client.get(f"/services/{mine.id}/delivery-events").status_code == 200
    assert client.get(f"/services/{mine.id}/delivery-events?kind=nonsense").status_code == 404

    no_activity = create_console_user(service=mine, permissions=["send_messages"])
    client = signed_in_client(console_app, no_activity.user)
    for path in (f"/services/{mine.id}/delivery-events",
                 f"/services/{mine.id}/delivery-events/unsubscribe-requests.csv"):
        assert client.get(path).status_code == 403, path


def test_complaints_outside_the_email_retention_are_not_shown(console_app):
    service = create_service()
    Service.update(email_retention_days=3).where(Service.id == service.id).execute()
    member = create_console_user(service=service, permissions=["view_activity"])
    old = create_notification(service=service, notification_type="email", to="old@example.nl", status="delivered")
    new = create_notification(service=service, notification_type="email", to="new@example.nl", status="delivered")
    apply_email_events("test", [
        EmailEvent(type=COMPLAINT, reference=str(old.id), occurred_at=utcnow() - datetime.timedelta(days=4)),
        EmailEvent(type=COMPLAINT, reference=str(new.id), occurred_at=utcnow()),
    ])
    response = signed_in_client(console_app, member.user).get(f"/services/{service.id}/delivery-events")
    body = response.get_data(as_text=True)
    assert "new@example.nl" in body and "old@example.nl" not in body


def test_each_kind_appears_on_the_page_with_its_date_and_reference(signed_in_member, service, tmp_path):
    page = signed_in_member
    complained = create_notification(service=service, notification_type="email", to="klager@example.nl",
                                     status="delivered", reference="mail-ref-1")
    complained_at = utcnow().replace(microsecond=0) - datetime.timedelta(hours=2)
    assert apply_email_events("test", [EmailEvent(type=COMPLAINT, reference=str(complained.id),
                                                  occurred_at=complained_at, detail="abuse")]) == 1
    returned_on = (utcnow() - datetime.timedelta(days=1)).date().isoformat()
    letter = create_notification(service=service, notification_type="letter", status="delivered",
                                 reference="brief-ref-7", sent_at=utcnow())
    _return_letter(tmp_path, letter, returned_on)
    newsletter = create_sample_template(service=service, template_type="email", name="Nieuwsbrief")
    leaving = create_notification(service=service, template=newsletter, to="weg@example.nl",
                                  status="delivered", reference="mail-ref-2", sent_at=utcnow())
    assert record_request(leaving) is not None
    assert NotificationEvent.select().count() == 3

    page.goto("/services/" + str(service.id))
    page.get_by_role("link", name="Meldingen na verzending").click()
    assert_accessible(page)
    row = page.locator("tbody tr")
    assert row.count() == 1
    assert row.inner_text().split("\t") == [amsterdam(complained_at), "klager@example.nl",
                                           "mail-ref-1"]

    page.get_by_role("link", name="Teruggekomen brieven").click()
    assert_accessible(page)
    day_shown = format_date(datetime.date.fromisoformat(returned_on), "d MMM y", locale="nl")  # "25 nov 2026"
    assert page.locator("tbody tr").inner_text().split("\t") == [day_shown, "brief-ref-7", str(letter.id)]

    page.get_by_role("link", name="Afmeldverzoeken").click()
    assert_accessible(page)
    cells = page.locator("tbody tr").inner_text().split("\t")
    assert cells[1:] == ["weg@example.nl", "mail-ref-2"]
    assert cells[0].split()[:3] == amsterdam(utcnow()).split()[:3]  # today, on Amsterdam's clock
    rows = downloaded_rows(page.get_by_role("link", name="Alle afmeldverzoeken downloaden (CSV)"))
    assert rows[0] == ["E-mailadres", "Bericht-ID", "Referentie", "Sjabloon", "Verstuurd op", "Afgemeld op"]
    assert len(rows) == 2
    # Times on the service's clock as its pages write them, the template by its name.
    assert rows[1] == ["weg@example.nl", str(leaving.id), "mail-ref-2", "Nieuwsbrief", amsterdam(leaving.sent_at),
                       cells[0]]
