"""The rules of case events without the fakes: which URL lies under a root, the OMC's scenarios and choice
of address, a letter's address lines, what identifies a message; the sweep that sends again what lost its
queue message; the case-events queue known to the workers; a fresh ZGW JWT."""
from __future__ import annotations

import datetime

import jwt
import pytest

from models.case_event import CaseEvent
from models.db import utcnow
from pipeline.domain import case_events as domain
from pipeline.infrastructure.zgw import under_root, zgw_jwt
from pipeline.stages.case_events import processing, sweep
from tests.factories import create_service

ROOT = "https://open-zaak.gemeente.nl/zaken/api/v1/"


@pytest.mark.parametrize("url", [
    ROOT + "statussen/0d6b1f31-3b7e-4b4d-9e3c-0a6b8d1e2f3a",
    "https://OPEN-ZAAK.gemeente.nl:443/zaken/api/v1/zaken/x",
    ROOT + "rollen?zaak=https%3A%2F%2Fopen-zaak.gemeente.nl%2Fzaken&omschrijvingGeneriek=initiator",
])
def test_urls_under_the_root(url):
    assert under_root(url, ROOT)


@pytest.mark.parametrize("url", [
    "https://open-zaak.gemeente.nl/zaken/api/v2/zaken/x",  # another path
    "https://open-zaak.gemeente.nl/zaken/api/v1",  # the root's parent spelling
    "http://open-zaak.gemeente.nl/zaken/api/v1/zaken/x",  # another scheme
    "https://open-zaak.gemeente.nl:8443/zaken/api/v1/zaken/x",  # another port
    "https://open-zaak.gemeente.nl.evil.example/zaken/api/v1/zaken/x",
    "https://open-zaak.gemeente.nl@evil.example/zaken/api/v1/zaken/x",
    "https://evil.example/zaken/api/v1/zaken/x",
    ROOT + "../../../catalogi/api/v1/x", ROOT + "zaken/..", ROOT + "%2e%2e/x", ROOT + "zaken%2f..%2fx",
    ROOT + "zaken\\..\\x", ROOT + "zaken/x#fragment", ROOT + "zaken/ x", None, 42, "",
])
def test_urls_not_under_the_root(url):
    assert not under_root(url, ROOT)


def test_a_fresh_jwt_as_open_zaak_reads_it():
    claims = jwt.decode(zgw_jwt("notify", "s" * 32, "Gemeente"), "s" * 32, algorithms=["HS256"])
    assert (claims["iss"], claims["client_id"], claims["user_id"], claims["user_representation"]) == (
        "notify", "notify", "notify", "Gemeente")
    assert abs(claims["iat"] - datetime.datetime.now(datetime.UTC).timestamp()) < 60


@pytest.mark.parametrize(("statustype", "scenario"), [
    ({"volgnummer": 1, "isEindstatus": False}, "received"),
    ({"volgnummer": 1, "isEindstatus": True}, "received"),  # a case type of one status: as the OMC, received
    ({"volgnummer": 2, "isEindstatus": False}, "updated"),
    ({"volgnummer": 5, "isEindstatus": True}, "closed"),
])
def test_the_scenarios_as_the_omc_chooses_them(statustype, scenario):
    assert domain.scenario_of(statustype) == scenario


def test_informeren_is_false_unless_the_status_type_says_true():
    assert domain.informs({"informeren": True}) and not domain.informs({}) and not domain.informs(
        {"informeren": "true"})


def _party(*addresses, preferred=None, address=None):
    made = [{"uuid": f"a{n}", "soortDigitaalAdres": kind, "adres": value, "referentie": reference}
            for n, (kind, value, reference) in enumerate(addresses)]
    return {"_expand": {"digitaleAdressen": made}, "voorkeursDigitaalAdres": {"uuid": preferred} if preferred else None,
            "correspondentieadres": address,
            "partijIdentificatie": {"contactnaam": {"voornaam": "Anna", "voorvoegselAchternaam": "van",
                                                    "achternaam": "Dijk"}}}


def test_the_address_chosen_as_the_omc_chooses_it():
    phone, email, other = ("telefoonnummer", "0612345678", ""), ("email", "anna@example.nl", ""), ("overig", "x", "")
    assert domain.contact_of(_party(phone, email), "Z1", None).reached_by == [("email", "anna@example.nl")]
    assert domain.contact_of(_party(phone, email, preferred="a0"), "Z1", None).reached_by == [
        ("sms", "0612345678"), ("email", "anna@example.nl")]
    by_case = ("telefoonnummer", "0687654321", "Z1")
    assert domain.contact_of(_party(email, by_case, preferred="a0"), "Z1", None).reached_by[0] == (
        "sms", "0687654321")
    assert domain.contact_of(_party(other), "Z1", ["A", "B", "C"]).reached_by == [("letter", ["A", "B", "C"])]
    assert domain.contact_of(_party(("email", "  ", "")), "Z1", None).reached_by == []


def test_a_letters_address_lines_from_the_party():
    street = {"straatnaam": "Dorpsstraat", "huisnummer": 1, "huisnummertoevoeging": "A", "postcode": "1234 AB",
              "stad": "Amsterdam"}
    assert domain.letter_lines(_party(address=street)) == ["Anna van Dijk", "Dorpsstraat 1 A", "1234 AB  Amsterdam"]
    lines = {"adresregel1": "Rue de la Paix 1", "adresregel2": "75002 Paris", "adresregel3": "", "land": "FR"}
    assert domain.letter_lines(_party(address=lines)) == ["Anna van Dijk", "Rue de la Paix 1", "75002 Paris"]
    assert domain.letter_lines(_party(address={"stad": "Amsterdam"})) is None
    assert domain.letter_lines(_party()) is None


def test_what_identifies_a_message_is_its_channel_resource_action_and_url():
    message = {"kanaal": "zaken", "resource": "status", "actie": "create", "resourceUrl": ROOT + "statussen/1",
               "hoofdObject": ROOT + "zaken/1", "aanmaakdatum": "2026-12-07T10:00:00Z"}
    assert domain.message_key(message) == domain.message_key({**message, "aanmaakdatum": "2026-12-08T10:00:00Z"})
    assert domain.message_key(message) != domain.message_key({**message, "resourceUrl": ROOT + "statussen/2"})
    assert domain.is_case_status(message)
    assert not domain.is_case_status({**message, "resource": "rol"})
    assert not domain.is_case_status({**message, "kanaal": "test"})


def test_the_back_off_doubles_to_an_hour():
    assert [processing.retry_delay(n) for n in (1, 2, 3, 8, 50)] == [30, 60, 120, 3600, 3600]


def test_the_sweep_picks_up_what_lost_its_message_and_deletes_old_events(zgw, live_server):
    from tests.zgw.linked import link

    service = create_service()
    linked = link(zgw, service, subscribe=False)
    now = utcnow()

    def event(key, **fields):
        return CaseEvent.create(link=linked.id, service=service.id, message_key=key, message={}, **fields)

    lost = event("a", state="pending", next_attempt_at=now - datetime.timedelta(minutes=10))
    due = event("b", state="waiting", next_attempt_at=now + datetime.timedelta(minutes=10))
    contact = event("c", state="sent", contact_state="due", next_attempt_at=now - datetime.timedelta(minutes=6))
    old = event("d", state="not-informed", received_at=now - datetime.timedelta(days=sweep.KEEP_DAYS + 1))
    assert sweep.overdue(now) == ([str(lost.id)], [str(contact.id)])
    assert sweep.purge(now) == 1
    assert {str(e.id) for e in CaseEvent.select()} == {str(lost.id), str(due.id), str(contact.id)}
    assert old.id not in {e.id for e in CaseEvent.select()}


def test_the_case_events_queue_is_consumed_by_the_procfiles_worker_and_known_to_the_dashboard():
    from workers.broker import current_broker
    from workers.queue_stats import queue_names
    from workers.supervise import every_queue_but

    assert "case-events" in current_broker().get_declared_queues()
    assert "case-events" in every_queue_but(["jobs"])  # Procfile: worker --except-queues jobs
    assert "case-events" in queue_names()
