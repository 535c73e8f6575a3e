"""Case events end to end through the fakes of Open Zaak, Open Klant and Open Notificaties (tests/zgw/fakes,
written from the OpenAPI files by another hand): a status set on a case in Open Zaak reaches us through
Open Notificaties' delivery, becomes a message sent through the API's own send (the simulator delivers
it), and the final message a klantcontact in Open Klant on the citizen's party and the case."""
from __future__ import annotations

from models.notification import Notification
from pipeline.domain import case_events as domain
from tests.conftest import wait_for
from tests.zgw.linked import BSN, CASE_TYPE, citizen, events, link, only_event, seed_case_type


def _event_final():
    found = events()
    return found[0] if len(found) == 1 and found[0].state not in domain.OPEN else None


def test_a_status_set_in_open_zaak_becomes_a_text_and_a_klantcontact(zgw, service, live_server, worker):
    linked = link(zgw, service)
    case = seed_case_type(zgw)
    party = citizen(zgw, preferred="sms")
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-2026-0001", omschrijving="Parkeervergunning Dorpsstraat",
                        bsn=BSN)

    zgw.set_status(zaak, case.received)

    event = wait_for(_event_final)
    assert (event.state, event.scenario, event.channel) == ("sent", "received", "sms")
    assert (event.zaak_identificatie, event.status_omschrijving) == ("ZAAK-2026-0001", "Ontvangen")
    message = Notification.get_by_id(event.notification_id)
    assert (message.notification_type, message.to, message.reference, message.key_type) == (
        "sms", "0612345678", "ZAAK-2026-0001", "live")
    assert message.body == ("Beste Anna, uw zaak ZAAK-2026-0001 (Parkeervergunning Dorpsstraat): Ontvangen.")
    wait_for(lambda: Notification.get_by_id(event.notification_id).status == "delivered")

    [contact] = wait_for(lambda: zgw.klantcontacten())
    assert (contact["kanaal"], contact["onderwerp"], contact["indicatieContactGelukt"], contact["taal"]) == (
        "sms", "Zaak ZAAK-2026-0001: Ontvangen", True, "nld")
    assert contact["inhoud"] == message.body
    [betrokkene] = contact["betrokkenen"]
    assert (betrokkene["wasPartij"]["url"], betrokkene["rol"], betrokkene["initiator"]) == (party, "klant", True)
    [onderwerp] = contact["onderwerpobjecten"]
    assert onderwerp["onderwerpobjectidentificator"] == {
        "codeObjecttype": "zaak", "codeRegister": "openzaak", "codeSoortObjectId": "uuid",
        "objectId": zaak.rstrip("/").rsplit("/", 1)[1]}
    assert wait_for(lambda: only_event().contact_state == "recorded")
    # Open Notificaties delivered the message with the value the service gave it, and our answer was 2xx.
    [delivered] = [d for d in zgw.deliveries() if not d["test"]]
    assert (delivered["callbackUrl"], delivered["status"]) == (f"{live_server}/case-events/{linked.id}", 204)
    assert CASE_TYPE in linked.case_types


def _sent_messages(service) -> list[Notification]:
    return list(Notification.select().where(Notification.service == service.id))


def test_open_notificaties_posting_a_message_again_sends_nothing_more(zgw, service, live_server, worker):
    link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-2", omschrijving="Vergunning", bsn=BSN)
    zgw.set_status(zaak, case.in_progress)
    event = wait_for(_event_final)
    assert (event.state, event.scenario) == ("sent", "updated")

    assert zgw.redeliver_last() == 204  # answered as the first time: Open Notificaties stops posting it
    assert zgw.redeliver_last() == 204

    assert [e.id for e in events()] == [event.id]
    assert len(_sent_messages(service)) == 1


def test_a_citizen_without_contact_details_is_kept_as_such_and_nothing_is_sent(zgw, service, live_server, worker):
    link(zgw, service)
    case = seed_case_type(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-3", omschrijving="Vergunning", bsn=BSN)  # no party
    zgw.set_status(zaak, case.received)

    event = wait_for(_event_final)
    assert (event.state, event.detail, event.zaak_identificatie) == ("no-contact-details", {"reason": "no-party"},
                                                                     "ZAAK-3")
    assert _sent_messages(service) == []


def test_a_party_with_neither_digital_address_nor_postal_address_is_no_contact_details(
        zgw, service, live_server, worker):
    link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw, phone=None)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-4", omschrijving="Vergunning", bsn=BSN)
    zgw.set_status(zaak, case.received)

    event = wait_for(_event_final)
    assert (event.state, event.detail) == ("no-contact-details", {"reason": "no-address"})
    assert _sent_messages(service) == []


def test_a_status_type_that_does_not_inform_the_initiator_is_skipped_without_asking_open_klant(
        zgw, service, live_server, worker):
    link(zgw, service)
    case = seed_case_type(zgw, informeren=False)
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-5", omschrijving="Vergunning", bsn=BSN)
    zgw.set_status(zaak, case.received)

    event = wait_for(_event_final)
    assert (event.state, event.status_omschrijving) == ("not-informed", "Ontvangen")
    assert _sent_messages(service) == []
    assert zgw.requests("klant") == []


def test_a_case_type_not_taking_part_is_skipped(zgw, service, live_server, worker):
    link(zgw, service)
    case = seed_case_type(zgw, identificatie="BEZWAAR")
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-6", omschrijving="Bezwaar", bsn=BSN)
    zgw.set_status(zaak, case.received)

    event = wait_for(_event_final)
    assert (event.state, event.detail) == ("case-type-not-taking-part", {"case_type": "BEZWAAR"})
    assert _sent_messages(service) == []


def test_open_zaak_down_for_a_while_is_waited_out_and_the_text_sent_once_it_is_back(
        zgw, service, live_server, worker, monkeypatch):
    from pipeline.stages.case_events import processing

    monkeypatch.setattr(processing, "FIRST_RETRY_SECONDS", 0.3)
    monkeypatch.setattr(processing, "LONGEST_RETRY_SECONDS", 0.5)
    link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-7", omschrijving="Vergunning", bsn=BSN)
    zgw.take_down("zaken")
    zgw.set_status(zaak, case.closed)

    waiting = wait_for(lambda: next((e for e in events() if e.state == "waiting" and e.attempts >= 2), None))
    assert waiting.detail == {"api": "zaken", "status": 503, "code": "service_unavailable"}
    assert _sent_messages(service) == []
    zgw.bring_up("zaken")

    event = wait_for(_event_final)
    assert (event.state, event.scenario) == ("sent", "closed")
    assert len(_sent_messages(service)) == 1
    # Open Notificaties was answered 2xx at once: the message waited with us, not with it.
    assert [d["status"] for d in zgw.deliveries() if not d["test"]] == [204]


def test_an_api_down_past_the_horizon_is_given_up_and_can_be_tried_again(zgw, service, live_server):
    from core import case_events
    from models.case_event import CaseEvent
    from pipeline.stages.case_events import processing

    linked = link(zgw, service, subscribe=False)
    case = seed_case_type(zgw)
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-8", omschrijving="Vergunning", bsn=BSN)

    # As Open Notificaties posts it; Open Zaak is down, so the status is never read.
    message = {"kanaal": "zaken", "hoofdObject": zaak, "resource": "status", "actie": "create",
               "resourceUrl": zgw.zaken_root + "statussen/0d6b1f31-3b7e-4b4d-9e3c-0a6b8d1e2f3a",
               "aanmaakdatum": "2026-12-07T10:00:00Z", "kenmerken": {}}
    event_id = case_events.receive(linked, message)
    CaseEvent.update(attempts=processing.GIVE_UP_AFTER_ATTEMPTS - 1).execute()
    zgw.take_down("zaken")
    sent = {"sms": lambda rows: None, "email": lambda rows: None, "letter": lambda rows: None}

    assert processing.process(event_id, sent) is None  # no further try
    given_up = CaseEvent.get_by_id(event_id)
    assert (given_up.state, given_up.detail) == ("gave-up", {"api": "zaken", "status": 503,
                                                            "code": "service_unavailable"})
    assert case_events.retry_event(str(service.id), event_id).state == "pending"
    assert processing.process(event_id, sent) == processing.FIRST_RETRY_SECONDS  # its tries begin again
    assert CaseEvent.get_by_id(event_id).state == "waiting"


def test_open_zaak_refusing_our_credentials_is_kept_and_nothing_is_sent(zgw, service, live_server, worker):
    from models.case_event import CaseEventLink

    link(zgw, service)
    CaseEventLink.update(client_secret="a-secret-open-zaak-does-not-know-at-all").execute()
    case = seed_case_type(zgw)
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-12", omschrijving="Vergunning", bsn=BSN)
    zgw.set_status(zaak, case.received)

    event = wait_for(_event_final)
    assert (event.state, event.detail["api"], event.detail["status"]) == ("api-refused", "zaken", 403)
    assert _sent_messages(service) == []
    assert [(method, status) for method, _, status in zgw.requests("zaken")] == [("GET", 403)]  # asked once
