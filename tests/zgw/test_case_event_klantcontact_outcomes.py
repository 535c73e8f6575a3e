"""What becomes of a klantcontact that Open Klant does not take: Open Klant down is asked again with back-off
for the events' own horizon (about three days of tries, counted from when the klantcontact became due),
then given up, kept, counted and shown in Dutch, and the event purged after its 90 days like any other;
Open Klant refusing it, or its address refused by us, is worded as what really happened."""
from __future__ import annotations

import dataclasses
import datetime
import uuid

from prometheus_client import REGISTRY

import config
from models.case_event import CaseEvent
from models.db import utcnow
from pipeline.domain import case_events as domain
from pipeline.stages.case_events import contact, processing, sweep
from tests.factories import create_notification, create_sample_template
from tests.zgw.linked import link

CONTACTS = "notify_case_event_klantcontacts_total"


def _due(linked, **fields) -> CaseEvent:
    """An event whose message went out and whose klantcontact is due, as the stage leaves it."""
    values = {"state": domain.SENT, "channel": "sms", "contact_state": domain.CONTACT_DUE,
              "next_attempt_at": utcnow(), "zaak_identificatie": "ZAAK-51", "status_omschrijving": "Ontvangen",
              "scenario": "received", "partij_uuid": str(uuid.uuid4()), "zaak_uuid": str(uuid.uuid4()), **fields}
    return CaseEvent.create(link=linked.id, service=linked.service_id, message_key=uuid.uuid4().hex, message={},
                            **values)


def _count(outcome: str) -> float:
    return REGISTRY.get_sample_value(CONTACTS, {"outcome": outcome}) or 0.0


def test_open_klant_down_past_the_horizon_gives_the_klantcontact_up(zgw, service, live_server):
    linked = link(zgw, service, subscribe=False)
    event = _due(linked, attempts=processing.GIVE_UP_AFTER_ATTEMPTS - 2)
    zgw.take_down("klant")
    before = _count(domain.CONTACT_GAVE_UP)

    assert contact.record(event.id) == processing.LONGEST_RETRY_SECONDS  # one try left: it waits
    waiting = CaseEvent.get_by_id(event.id)
    assert (waiting.contact_state, waiting.detail) == (
        domain.CONTACT_DUE, {"klantcontact": {"api": "klant", "status": 503, "code": "service_unavailable"}})
    assert "Klantcontact in Open Klant: Wacht: Open Klant antwoordde HTTP 503 (79 keer geprobeerd)" in \
        _events_page(service)

    assert contact.record(event.id) is None  # the last: given up
    given_up = CaseEvent.get_by_id(event.id)
    assert (given_up.state, given_up.contact_state, given_up.next_attempt_at) == ("sent", "gave-up", None)
    assert _count(domain.CONTACT_GAVE_UP) == before + 1
    assert contact.record(event.id) is None and _count(domain.CONTACT_GAVE_UP) == before + 1  # once
    assert sweep.overdue(utcnow() + datetime.timedelta(days=1)) == ([], [])
    assert "Klantcontact in Open Klant: Niet vastgelegd: Open Klant bleef drie dagen onbereikbaar" in \
        _events_page(service)

    assert sweep.purge(utcnow() + datetime.timedelta(days=sweep.KEEP_DAYS + 1)) == 1
    assert CaseEvent.get_or_none(CaseEvent.id == event.id) is None


def test_a_klantcontact_gets_its_whole_horizon_however_long_its_event_waited(zgw, service, live_server):
    linked = link(zgw, service, subscribe=False)
    template = create_sample_template(service=service, template_type="sms")
    message = create_notification(service=service, template=template, status="sending")
    # Open Zaak was down for nearly three days before the message went out.
    event = _due(linked, contact_state=domain.CONTACT_AWAITING, notification_id=message.id, next_attempt_at=None,
                 attempts=processing.GIVE_UP_AFTER_ATTEMPTS - 1)
    assert contact.due_after(str(message.id), "delivered") == str(event.id)
    zgw.take_down("klant")

    assert contact.record(event.id) == processing.FIRST_RETRY_SECONDS
    assert (CaseEvent.get_by_id(event.id).contact_state, CaseEvent.get_by_id(event.id).attempts) == (
        domain.CONTACT_DUE, 1)


def test_an_address_we_refuse_is_not_called_open_klants_refusal(zgw, service, live_server, monkeypatch):
    linked = link(zgw, service, subscribe=False)
    ours = _due(linked, zaak_identificatie="ZAAK-52")
    theirs = _due(linked, zaak_identificatie="ZAAK-53")
    before = _count(domain.CONTACT_REFUSED)
    # Open Klant's name now resolves to an address the service may not reach (loopback, here).
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(),
                                                                 callbacks_allow_http_loopback=False))
    assert contact.record(ours.id) is None
    monkeypatch.undo()
    linked.klant_token = "a-token-open-klant-does-not-know"
    linked.save()
    assert contact.record(theirs.id) is None

    assert CaseEvent.get_by_id(ours.id).detail == {"klantcontact": {"api": "klant", "status": None,
                                                                    "code": "address-refused"}}
    assert [CaseEvent.get_by_id(e.id).contact_state for e in (ours, theirs)] == ["refused", "refused"]
    assert _count(domain.CONTACT_REFUSED) == before + 2
    assert zgw.requests("klant") == [("POST", "/klantinteracties/api/v1/maak-klantcontact", 401)]
    text = _events_page(service)
    assert "Klantcontact in Open Klant: Niet vastgelegd: Open Klant staat op een adres dat deze dienst niet mag " \
           "bereiken" in text
    assert "Klantcontact in Open Klant: Open Klant weigerde het (HTTP 401)" in text
    assert text.count("weigerde") == 1


def _events_page(service) -> str:
    from console import app as console_app
    from tests.console.service_pages import page_text, signed_in_client
    from tests.console.users import create_console_user

    member = signed_in_client(console_app, create_console_user(service=service, permissions=["view_activity"]).user)
    return page_text(member.get(f"/services/{service.id}/case-events"))
