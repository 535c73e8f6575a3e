"""Which channel a citizen is reached by, as Worth-NL's OMC chooses it (an address whose referentie is the
case, else the party's preferred one, else email, else a text, else a letter where an address is known),
the fallback chain for the channels after the first, and no BSN in what the service keeps or logs."""
from __future__ import annotations

import io
import logging

from playhouse.shortcuts import model_to_dict

from models.case_event import CaseEvent
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from observability.logs import json_formatter
from pipeline.domain import case_events as domain
from tests.conftest import wait_for
from tests.zgw.linked import BSN, citizen, events, link, seed_case_type

ADDRESS = {"straatnaam": "Dorpsstraat", "huisnummer": 1, "postcode": "1234 AB", "stad": "Amsterdam"}


def _sent(service_and_zgw, **party) -> tuple[CaseEvent, Notification]:
    zgw, service = service_and_zgw
    link(zgw, service)
    case = seed_case_type(zgw)
    made = citizen(zgw, **party)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-9", omschrijving="Vergunning", bsn=BSN)
    zgw.set_status(zaak, case.received)
    event = wait_for(lambda: next((e for e in events() if e.state not in domain.OPEN), None))
    assert event.state == "sent", (event.state, event.detail)
    assert event.partij_uuid == made.rstrip("/").rsplit("/", 1)[1]
    return event, Notification.get_by_id(event.notification_id)


def test_the_preferred_email_address_is_used_with_a_letter_behind_it(zgw, service, live_server, worker):
    event, message = _sent((zgw, service), email="anna@example.nl", preferred="email", address=ADDRESS)
    assert (event.channel, message.notification_type, message.to) == ("email", "email", "anna@example.nl")
    assert message.subject == "Uw zaak ZAAK-9"
    assert message.body.startswith("Beste Anna van Dijk,")
    [letter] = NotificationFallback.get_by_id(message.id).alternatives
    assert (letter["type"], letter["personalisation"]["address_line_1"], letter["personalisation"]["address_line_2"],
            letter["personalisation"]["address_line_3"]) == ("letter", "Anna van Dijk", "Dorpsstraat 1",
                                                             "1234 AB  Amsterdam")


def test_without_a_preference_an_email_address_comes_before_a_phone_number(zgw, service, live_server, worker):
    event, message = _sent((zgw, service), email="anna@example.nl")
    assert (event.channel, message.to) == ("email", "anna@example.nl")


def test_an_address_whose_referentie_is_the_case_wins(zgw, service, live_server, worker):
    link(zgw, service)
    case = seed_case_type(zgw)
    party = citizen(zgw, email="anna@example.nl", preferred="email")
    zgw.add_digitaal_adres(party, soort="telefoonnummer", adres="0687654321", referentie="ZAAK-10")
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-10", omschrijving="Vergunning", bsn=BSN)
    zgw.set_status(zaak, case.received)
    event = wait_for(lambda: next((e for e in events() if e.state not in domain.OPEN), None))
    message = Notification.get_by_id(event.notification_id)
    assert (event.channel, message.to) == ("sms", "0687654321")
    # A text falls back to the email address, then (none known here) nothing more.
    [email] = NotificationFallback.get_by_id(message.id).alternatives
    assert (email["type"], email["email_address"]) == ("email", "anna@example.nl")


def test_a_letter_where_only_a_postal_address_is_known(zgw, service, live_server, worker):
    event, message = _sent((zgw, service), phone=None, address=ADDRESS)
    assert (event.channel, message.notification_type) == ("letter", "letter")
    assert message.to.splitlines()[:2] == ["Anna van Dijk", "Dorpsstraat 1"]


def test_a_trial_service_is_held_to_trial_mode_like_every_send(zgw, service, live_server, worker):
    service.trial_mode = True
    service.save()
    link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-11", omschrijving="Vergunning", bsn=BSN)
    zgw.set_status(zaak, case.received)
    event = wait_for(lambda: next((e for e in events() if e.state not in domain.OPEN), None))
    assert (event.state, event.detail["channel"], [r["code"] for r in event.detail["refusals"]]) == (
        "send-refused", "sms", ["trial_mode_recipient"])
    assert Notification.select().count() == 0


def test_no_bsn_in_what_is_kept_or_logged(zgw, service, live_server, worker):
    root, lines = logging.getLogger(), io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.setFormatter(json_formatter("worker"))  # what every process writes its lines with
    level = root.level
    root.setLevel(logging.DEBUG)  # stricter than any process runs: the libraries' request lines too
    root.addHandler(handler)
    try:
        event, message = _sent((zgw, service))
        wait_for(lambda: CaseEvent.get_by_id(event.id).contact_state == "recorded")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert any(BSN in path for _, path, _ in zgw.requests("klant"))  # it was asked for by the BSN
    kept = CaseEvent.get_by_id(event.id)
    assert BSN not in repr(model_to_dict(kept))
    assert BSN not in repr(model_to_dict(Notification.get_by_id(message.id)))
    assert BSN not in repr(message.personalisation) and BSN not in (message.body or "")
    logged = lines.getvalue()
    assert "partijen" in logged  # the library's request line, its BSN masked
    assert BSN not in logged


def test_an_email_that_bounces_falls_back_to_a_letter_and_the_klantcontact_tells_of_the_letter(
        zgw, service, live_server, worker):
    from workers import letters

    # The simulator fails an address starting "perm-fail@" for good (pipeline/infrastructure/providers/simulated.py).
    event, email = _sent((zgw, service), phone=None, email="perm-fail@example.nl", address=ADDRESS)
    assert (event.channel, email.to) == ("email", "perm-fail@example.nl")
    letter_id = wait_for(lambda: NotificationFallback.get_by_id(email.id).sent_as)
    wait_for(lambda: Notification.get_by_id(letter_id).billable_units is not None)
    assert CaseEvent.get_by_id(event.id).contact_state == "awaiting"  # the chain went on: nothing recorded yet
    assert zgw.klantcontacten() == []
    letters.print_letters.send()

    [contact] = wait_for(lambda: zgw.klantcontacten())
    letter = Notification.get_by_id(letter_id)
    assert (Notification.get_by_id(email.id).status, letter.status) == ("permanent-failure", "delivered")
    assert (contact["kanaal"], contact["indicatieContactGelukt"]) == ("brief", True)
    assert wait_for(lambda: CaseEvent.get_by_id(event.id).contact_state == "recorded")
