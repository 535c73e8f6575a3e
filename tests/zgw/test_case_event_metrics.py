"""The case events' Prometheus counters: each outcome kept is counted once, by scenario where the case
decided it and by API where an API did; the klantcontacts by outcome; the series the alerts watch
(docs/prometheus/alerts.yml) exported from the start, at 0."""
from __future__ import annotations

from prometheus_client import REGISTRY

from models.case_event import CaseEventLink
from pipeline.domain import case_events as domain
from tests.conftest import wait_for
from tests.zgw.linked import BSN, citizen, events, link, seed_case_type

OUTCOMES = "notify_case_event_outcomes_total"
CONTACTS = "notify_case_event_klantcontacts_total"


def _count(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _all_final(count: int):
    found = events()
    return found if len(found) == count and all(e.state not in domain.OPEN for e in found) else None


def test_outcomes_and_klantcontacts_are_counted_once_each(zgw, service, live_server, worker):
    sent = {"outcome": "sent", "scenario": "received", "api": ""}
    no_party = {"outcome": "no-contact-details", "scenario": "closed", "api": ""}
    before = (_count(OUTCOMES, **sent), _count(OUTCOMES, **no_party), _count(CONTACTS, outcome="recorded"))
    link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw)
    reached = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-31", omschrijving="Vergunning", bsn=BSN)
    unknown = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-32", omschrijving="Vergunning", bsn="999990019")
    zgw.set_status(reached, case.received)
    zgw.set_status(unknown, case.closed)
    wait_for(lambda: _all_final(2) and any(e.contact_state == domain.CONTACT_RECORDED for e in events()))
    assert zgw.redeliver_last() == 204  # a repeat is no outcome of its own

    assert (_count(OUTCOMES, **sent), _count(OUTCOMES, **no_party), _count(CONTACTS, outcome="recorded")) == (
        before[0] + 1, before[1] + 1, before[2] + 1)


def test_an_api_refusing_our_credentials_is_counted_by_the_api(zgw, service, live_server, worker):
    refused = {"outcome": "api-refused", "scenario": "", "api": "zaken"}
    before = _count(OUTCOMES, **refused)
    link(zgw, service)
    CaseEventLink.update(client_secret="a-secret-open-zaak-does-not-know-at-all").execute()
    case = seed_case_type(zgw)
    zgw.set_status(zgw.add_zaak(case.zaaktype, identificatie="ZAAK-33", omschrijving="Vergunning", bsn=BSN),
                   case.received)
    wait_for(lambda: _all_final(1))
    assert _count(OUTCOMES, **refused) == before + 1


def test_the_series_the_alerts_watch_are_exported_from_the_start(client):
    text = client.get("/metrics").get_data(as_text=True)
    for api in ("zaken", "catalogi", "klant"):
        for outcome in ("api-refused", "gave-up"):
            assert f'{OUTCOMES}{{api="{api}",outcome="{outcome}",scenario=""}}' in text
    for outcome in ("refused", "gave-up"):
        assert f'{CONTACTS}{{outcome="{outcome}"}}' in text
