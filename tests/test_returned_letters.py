"""Returned letters: the print provider's returns move letters to `returned-letter` and reach the
service's callback; the simulated printer returns a letter marked "return-to-sender"."""
from __future__ import annotations

import datetime
import json

from notifications_python_client.notifications import NotificationsAPIClient

from models.db import utcnow
from models.notification_event import NotificationEvent
from pipeline.infrastructure.print_provider import DirectoryPrintProvider
from pipeline.stages.letters import returns
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_notification, create_sample_template, create_service
from tests.test_callbacks import receiver, register  # noqa: F401  (receiver: a fixture)
from workers import letters


def test_a_letter_returned_by_the_simulated_printer_reaches_the_service(receiver, live_server, worker):
    service = create_service(permissions=["letter"])
    register(service, receiver, "returned-letter")
    template = create_sample_template(service=service, template_type="letter", body="Dear ((name))")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    address = {"address_line_1": "Return-to-sender Jansen", "address_line_2": "Dorpsstraat 1",
               "address_line_3": "1234 AB  AMSTERDAM", "name": "x"}
    kept = api.send_letter_notification(str(template.id), {**address, "address_line_1": "A. Jansen"})["id"]
    returned = api.send_letter_notification(str(template.id), address, reference="letter-7")["id"]
    wait_for(lambda: all(status_of(n) == "created" for n in (kept, returned)))
    wait_for(lambda: _pdfs_ready(kept, returned))
    letters.print_letters.send()
    wait_for(lambda: status_of(returned) == "returned-letter")
    assert status_of(kept) == "delivered"
    [callback] = receiver.wait_for(1)
    event = NotificationEvent.get(NotificationEvent.notification_id == returned)
    assert callback.json == {
        "notification_id": returned, "returned_letter_id": str(event.id), "reference": "letter-7",
        "to": callback.json["to"], "template_id": str(template.id), "template_version": 1,
        "returned_letter_date": f"{datetime.date.today().isoformat()}T00:00:00.000000Z",
    }
    assert callback.json["to"].startswith("Return-to-sender Jansen")
    response = api.get_notification_by_id(returned)
    assert response["status"] == "returned-letter" and response["completed_at"] is not None


def _pdfs_ready(*ids: str) -> bool:
    from models.notification import Notification

    return all(Notification.get_by_id(n).billable_units is not None for n in ids)


def write_returns(root, name: str, body) -> None:
    folder = root / "inbox" / "returned"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(body))


def test_returns_by_id_and_by_reference(tmp_path):
    service = create_service(permissions=["letter"])
    sent_at = utcnow()
    by_id = create_notification(service=service, notification_type="letter", status="delivered", sent_at=sent_at)
    by_reference = create_notification(service=service, notification_type="letter", status="sending",
                                       reference="ref-42", sent_at=sent_at)
    ambiguous = [create_notification(service=service, notification_type="letter", status="sending",
                                     reference="twice") for _ in range(2)]
    not_handed_over = create_notification(service=service, notification_type="letter", status="created")
    provider = DirectoryPrintProvider(tmp_path)
    write_returns(tmp_path, "a.json", {"batch": "r1", "returned_on": "2026-11-20",
                                       "letters": [{"id": str(by_id.id)}, {"reference": "ref-42"},
                                                   {"reference": "twice"}, {"id": "not-an-id"}]})
    write_returns(tmp_path, "b.json", {"batch": "r2", "returned_on": "2026-11-21",
                                       "letters": [{"id": str(not_handed_over.id)}]})
    write_returns(tmp_path, "c.json", {"batch": "r3", "letters": []})  # no date: unreadable

    assert returns.apply_returns(provider) == 2
    assert [status_of(n.id) for n in (by_id, by_reference, *ambiguous, not_handed_over)] == \
        ["returned-letter", "returned-letter", "sending", "sending", "created"]
    dates = {str(e.notification_id): e.occurred_at for e in NotificationEvent.select()}
    assert dates == {str(by_id.id): datetime.datetime(2026, 11, 20),
                     str(by_reference.id): datetime.datetime(2026, 11, 20)}
    folder = tmp_path / "inbox" / "returned"
    assert sorted(p.name for p in folder.glob("*.json")) == ["b.json"]  # kept until its letter is handed over
    assert (folder / "processed" / "a.json").exists() and (folder / "rejected" / "c.json").exists()

    write_returns(tmp_path, "d.json", {"batch": "r1", "returned_on": "2026-11-20", "letters": [{"id": str(by_id.id)}]})
    assert returns.apply_returns(provider) == 0  # the same letter again: nothing more
    assert NotificationEvent.select().count() == 2
