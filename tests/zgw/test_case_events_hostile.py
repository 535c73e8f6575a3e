"""What reaches the case-events door is hostile until checked: only the Authorization value the service gave
Open Notificaties opens it, and a message naming URLs outside the configured roots is refused before any
request carrying our credentials leaves (the fakes' request logs and a trap host show nothing arrived)."""
from __future__ import annotations

import uuid

import pytest
import requests

from models.case_event import CaseEvent
from models.notification import Notification
from pipeline.domain import case_events as domain
from tests.conftest import wait_for
from tests.zgw.linked import BSN, citizen, events, link, seed_case_type
from tests.zgw.trap import trap

TEST_MESSAGE = {"kanaal": "test", "hoofdObject": "http://some.hoofdobject.nl/", "resource": "some_resource",
                "resourceUrl": "http://some.resource.nl/", "actie": "create",
                "aanmaakdatum": "2019-01-01T12:00:00Z", "kenmerken": {}}


def _final_events(count: int):
    found = events()
    return found if len(found) == count and all(e.state not in domain.OPEN for e in found) else None


def _status_message(zgw, hoofd_object: str, resource_url: str) -> dict:
    return {"kanaal": "zaken", "hoofdObject": hoofd_object, "resource": "status", "resourceUrl": resource_url,
            "actie": "create", "aanmaakdatum": "2026-12-07T10:00:00Z",
            "kenmerken": {"bronorganisatie": zgw.rsin, "zaaktype": zgw.catalogi_root + f"zaaktypen/{uuid.uuid4()}",
                          "vertrouwelijkheidaanduiding": "openbaar"}}


def test_forged_messages_are_refused_and_our_credentials_go_nowhere(zgw, service, live_server, worker):
    linked = link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw)
    real_case = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-1", omschrijving="Vergunning", bsn=BSN)
    with trap() as (elsewhere, seen):
        forged = [
            # Another host altogether.
            _status_message(zgw, f"{elsewhere}/zaken/api/v1/zaken/{uuid.uuid4()}",
                            f"{elsewhere}/zaken/api/v1/statussen/{uuid.uuid4()}"),
            # The real case, its status on another host.
            _status_message(zgw, real_case, f"{elsewhere}/zaken/api/v1/statussen/{uuid.uuid4()}"),
            # Under the root by its prefix, climbing out of it.
            _status_message(zgw, real_case, zgw.zaken_root + "statussen/../../../../zaken/api/v1/x"),
            _status_message(zgw, real_case, zgw.zaken_root + "statussen/%2e%2e/%2e%2e/zaken"),
            # A user name that makes the host another one.
            _status_message(zgw, real_case, zgw.zaken_root.replace("http://", f"http://{elsewhere[7:]}@")
                            + "statussen/x"),
        ]
        for message in forged:
            zgw.publish(message)
        found = wait_for(lambda: _final_events(len(forged)))
        assert seen == []
    assert {(event.state, event.detail["what"]) for event in found} == {
        ("outside-roots", "hoofdObject"), ("outside-roots", "resourceUrl")}
    assert zgw.requests("zaken") == [] and zgw.requests("catalogi") == [] and zgw.requests("klant") == []
    assert Notification.select().count() == 0
    # Open Notificaties heard 204 for each: a forged message is nobody's to retry.
    assert [d["status"] for d in zgw.deliveries() if not d["test"]] == [204] * len(forged)
    assert CaseEvent.select().where(CaseEvent.link == linked.id).count() == len(forged)


@pytest.mark.parametrize("authorization", [None, "", "Bearer wrong", "Token x"])
def test_the_door_refuses_any_authorization_but_the_one_given_to_open_notificaties(
        zgw, service, live_server, authorization):
    linked = link(zgw, service, subscribe=False)
    headers = {} if authorization is None else {"Authorization": authorization}
    answer = requests.post(f"{live_server}/case-events/{linked.id}", json=TEST_MESSAGE, headers=headers, timeout=10)
    assert answer.status_code == 403
    assert answer.json()["errors"] == [{"error": "AuthError", "message": "Not authorised"}]


def test_the_door_answers_the_test_message_and_refuses_unknown_links_and_bad_bodies(zgw, service, live_server):
    linked = link(zgw, service, subscribe=False)
    right = {"Authorization": linked.callback_auth}
    door = f"{live_server}/case-events/{linked.id}"
    assert requests.post(door, json=TEST_MESSAGE, headers=right, timeout=10).status_code == 204
    assert requests.post(f"{live_server}/case-events/{uuid.uuid4()}", json=TEST_MESSAGE, headers=right,
                         timeout=10).status_code == 403
    assert requests.post(f"{live_server}/case-events/not-a-uuid", json=TEST_MESSAGE, headers=right,
                         timeout=10).status_code == 403
    missing = requests.post(door, json={"kanaal": "zaken"}, headers=right, timeout=10)
    assert missing.status_code == 400
    assert requests.post(door, data=b"{" + b" " * 70_000 + b"}", headers=right, timeout=10).status_code == 413
    assert CaseEvent.select().count() == 0


def test_our_subscription_answered_open_notificaties_as_it_checks(zgw, service, live_server):
    linked = link(zgw, service)
    tests = [d for d in zgw.deliveries() if d["test"]]
    # First without the header (refused), then with the value the service gave it (accepted).
    assert [(d["authorization"], d["status"]) for d in tests] == [(None, 403), (linked.callback_auth, 204)]
    [subscription] = zgw.subscriptions()
    assert subscription["callbackUrl"] == f"{live_server}/case-events/{linked.id}"
    assert subscription["kanalen"] == [{"naam": "zaken", "filters": {}}]
