"""The Open Notificaties fake: subscriptions with Open Notificaties' callback checks, delivery of what is
published to the matching subscriptions with retries, the at-least-once repeat, and its refusals."""
from __future__ import annotations

import time
from typing import Any

import requests

from tests.zgw.fakes.common import FOUT, VALIDATIE_FOUT, problems, zgw_token
from tests.zgw.fakes.opennotificaties import ABONNEMENT, KANAAL, MESSAGE, TEST_MESSAGE
from tests.zgw.fakes.world import ZgwWorld
from tests.zgw.receiver import Receiver

AUTH = "Bearer callback-secret"
BSN = "999993653"


def nrc(world: ZgwWorld) -> dict[str, str]:
    return {"Authorization": zgw_token(world.nrc_client_id, world.nrc_secret)}


def subscribe(world: ZgwWorld, callback: str, *, auth: str = AUTH, filters: dict[str, str] | None = None,
              kanaal: str = "zaken") -> requests.Response:
    return requests.post(world.nrc_root + "abonnement", headers=nrc(world), timeout=30, json={
        "callbackUrl": callback, "auth": auth, "kanalen": [{"naam": kanaal, "filters": filters or {}}]})


def refused(answer: requests.Response, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert problems(VALIDATIE_FOUT if status == 400 else FOUT, body) == []
    assert code in [body["code"], *(p["code"] for p in body.get("invalidParams", []))], body
    return body


def case(world: ZgwWorld) -> tuple[str, str, str]:
    zaaktype = world.add_zaaktype("Aanvraag")
    ontvangen = world.add_statustype(zaaktype, "Ontvangen", 1)
    world.add_statustype(zaaktype, "Afgerond", 2)
    return zaaktype, ontvangen, world.add_zaak(zaaktype, identificatie="ZAAK-1", omschrijving="Aanvraag", bsn=BSN)


def settle(world: ZgwWorld) -> None:
    """Waits until the NRC has no attempt left to make."""
    deadline = time.monotonic() + 30
    while world._nrc.deliverer.pending() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert world._nrc.deliverer.pending() == 0


def test_subscribing_posts_the_test_message_without_then_with_the_auth_header(zgw):
    with Receiver(auth=AUTH) as receiver:
        made = subscribe(zgw, receiver.url, filters={"bronorganisatie": zgw.rsin})
        assert made.status_code == 201, made.text
        assert problems(ABONNEMENT, made.json()) == [] and "auth" not in made.json()
        assert made.headers["Location"] == made.json()["url"]
        assert receiver.posts == [(None, TEST_MESSAGE), (AUTH, TEST_MESSAGE)]
    assert [(d["test"], d["authorization"], d["status"]) for d in zgw.deliveries()] == [(True, None, 401),
                                                                                      (True, AUTH, 204)]
    [stored] = zgw.subscriptions()
    assert stored == {"url": made.json()["url"], "callbackUrl": receiver.url, "auth": AUTH,
                      "kanalen": [{"naam": "zaken", "filters": {"bronorganisatie": zgw.rsin}}]}
    read = requests.get(stored["url"], headers=nrc(zgw), timeout=5)
    assert read.status_code == 200 and read.json() == made.json()
    listed = requests.get(zgw.nrc_root + "abonnement", headers=nrc(zgw), timeout=5).json()
    assert listed == [made.json()]


def test_a_callback_that_takes_the_test_message_without_auth_or_refuses_it_with_auth_is_not_subscribed(zgw):
    with Receiver(auth=None) as open_door:
        refused(subscribe(zgw, open_door.url), 400, "no-auth-on-callback-url")
        assert open_door.posts == [(None, TEST_MESSAGE)]
    with Receiver(auth="Bearer other") as closed_door:
        refused(subscribe(zgw, closed_door.url), 400, "invalid-callback-url")
        assert [p[0] for p in closed_door.posts] == [None, AUTH]
    with Receiver(auth=AUTH, unauthorised_status=403) as receiver:
        receiver.answers = [500]
        refused(subscribe(zgw, receiver.url), 400, "invalid-callback-url")
    refused(subscribe(zgw, "http://127.0.0.1:9/nobody"), 400, "no-auth-on-callback-url")
    assert zgw.subscriptions() == []


def test_the_nrc_refuses_bad_subscriptions_and_wrong_clients(zgw):
    with Receiver(auth=AUTH) as receiver:
        refused(subscribe(zgw, receiver.url, kanaal="besluiten"), 400, "kanaal_naam")
        refused(subscribe(zgw, receiver.url, filters={"zaaktype": "x", "behandelaar": "y"}), 400,
                "inconsistent-abonnement-filters")
        body = refused(requests.post(zgw.nrc_root + "abonnement", headers=nrc(zgw), timeout=5,
                                     json={"callbackUrl": receiver.url}), 400, "required")
        assert {p["name"] for p in body["invalidParams"]} == {"auth", "kanalen"}
        refused(requests.post(zgw.nrc_root + "abonnement", headers=nrc(zgw), timeout=5,
                              json={"callbackUrl": "not a url", "auth": AUTH, "kanalen": []}), 400, "invalid")
        refused(requests.post(zgw.nrc_root + "abonnement", headers=nrc(zgw), data="{}", timeout=5), 415,
                "unsupported_media_type")
        zaken_client = {"Authorization": zgw_token(zgw.client_id, zgw.secret)}
        refused(requests.post(zgw.nrc_root + "abonnement", headers=zaken_client, json={}, timeout=5), 403,
                "invalid-client-identifier")
        refused(requests.get(zgw.nrc_root + "abonnement", timeout=5), 403, "permission_denied")
        expired = {"Authorization": zgw_token(zgw.nrc_client_id, zgw.nrc_secret, iat=int(time.time()) - 3601)}
        refused(requests.get(zgw.nrc_root + "kanaal", headers=expired, timeout=5), 403, "jwt-expired")
        refused(requests.post(zgw.nrc_root + "notificaties", headers=nrc(zgw), json={}, timeout=5), 403,
                "permission_denied")
        refused(requests.post(zgw.nrc_root + "kanaal", headers=nrc(zgw), json={"naam": "x"}, timeout=5), 501,
                "not_implemented_by_fake")
        refused(requests.delete(zgw.nrc_root + "kanaal", headers=nrc(zgw), timeout=5), 405, "method_not_allowed")
        refused(requests.get(zgw.nrc_root + "kanalen", headers=nrc(zgw), timeout=5), 404, "not_found")
        refused(requests.get(zgw.nrc_root + "kanaal", params={"name": "zaken"}, headers=nrc(zgw), timeout=5), 400,
                "unknown-parameters")
        assert receiver.posts == [(None, TEST_MESSAGE), (AUTH, TEST_MESSAGE)] * 2
    kanalen = requests.get(zgw.nrc_root + "kanaal", params={"naam": "zaken"}, headers=nrc(zgw), timeout=5).json()
    assert [problems(KANAAL, k) for k in kanalen] == [[]] and kanalen[0]["filters"] == [
        "bronorganisatie", "zaaktype", "vertrouwelijkheidaanduiding"]
    assert zgw.subscriptions() == []


def test_a_status_set_is_delivered_to_the_matching_subscriptions_only(zgw):
    zaaktype, ontvangen, zaak = case(zgw)
    with Receiver(auth=AUTH) as mine, Receiver(auth=AUTH) as other, Receiver(auth=AUTH) as everything:
        assert subscribe(zgw, mine.url, filters={"bronorganisatie": zgw.rsin, "zaaktype": zaaktype}).status_code == 201
        assert subscribe(zgw, other.url, filters={"bronorganisatie": "123456782"}).status_code == 201
        assert subscribe(zgw, everything.url, filters={"zaaktype": "*"}).status_code == 201
        status = zgw.set_status(zaak, ontvangen)
        zgw.wait_for_deliveries(2)
        settle(zgw)
        [(authorization, message)] = mine.posts[2:]
        assert authorization == AUTH and problems(MESSAGE, message) == []
        assert {k: v for k, v in message.items() if k != "aanmaakdatum"} == {
            "kanaal": "zaken", "hoofdObject": zaak, "resource": "status", "resourceUrl": status, "actie": "create",
            "kenmerken": {"bronorganisatie": zgw.rsin, "zaaktype": zaaktype, "vertrouwelijkheidaanduiding": "openbaar"}}
        assert everything.posts[2:] == mine.posts[2:] and other.posts[2:] == []


def test_a_failed_delivery_is_retried_until_taken_and_no_more_than_the_maximum(zgw):
    _, ontvangen, zaak = case(zgw)
    zgw.nrc_retry_seconds = 0.05
    zgw.nrc_max_attempts = 3
    with Receiver(auth=AUTH) as flaky, Receiver(auth=AUTH) as broken:
        assert subscribe(zgw, flaky.url).status_code == 201 and subscribe(zgw, broken.url).status_code == 201
        flaky.answers = [500, 503]
        broken.answers = [500] * 10
        zgw.set_status(zaak, ontvangen)
        zgw.wait_for_deliveries(6)
        settle(zgw)
        attempts = {url: [(d["attempt"], d["status"]) for d in zgw.deliveries() if not d["test"] and
                          d["callbackUrl"] == url] for url in (flaky.url, broken.url)}
        assert attempts == {flaky.url: [(1, 500), (2, 503), (3, 204)], broken.url: [(1, 500), (2, 500), (3, 500)]}
        assert len({str(body) for _, body in flaky.posts[2:]}) == 1  # the same message each time


def test_redeliver_last_posts_the_delivered_message_again(zgw):
    _, ontvangen, zaak = case(zgw)
    with Receiver(auth=AUTH) as receiver:
        assert subscribe(zgw, receiver.url).status_code == 201
        zgw.set_status(zaak, ontvangen)
        [first] = zgw.wait_for_deliveries(1)
        settle(zgw)
        assert zgw.redeliver_last() == 204
        assert receiver.posts[-1] == receiver.posts[-2] == (AUTH, first["body"])
        assert zgw.deliveries()[-1]["redelivery"] is True


def test_a_subscription_can_be_read_changed_and_deleted(zgw):
    _, ontvangen, zaak = case(zgw)
    with Receiver(auth=AUTH) as old, Receiver(auth="Bearer new") as new:
        url = subscribe(zgw, old.url).json()["url"]
        changed = requests.put(url, headers=nrc(zgw), timeout=30, json={
            "callbackUrl": new.url, "auth": "Bearer new", "kanalen": [{"naam": "zaken"}]})
        assert changed.status_code == 200 and changed.json()["callbackUrl"] == new.url
        assert [p[0] for p in new.posts] == [None, "Bearer new"]
        patched = requests.patch(url, headers=nrc(zgw), json={"kanalen": [{"naam": "zaken"}]}, timeout=30)
        refused(patched, 400, "invalid-callback-url")  # no auth in the change: the test message goes without one
        zgw.set_status(zaak, ontvangen)
        zgw.wait_for_deliveries(1)
        settle(zgw)
        assert new.posts[-1][0] == "Bearer new" and len(old.posts) == 2
        assert requests.delete(url, headers=nrc(zgw), timeout=5).status_code == 204
        refused(requests.get(url, headers=nrc(zgw), timeout=5), 404, "not_found")
    assert zgw.subscriptions() == []


def test_the_nrc_refuses_a_message_off_its_kanaal(zgw):
    _, _, zaak = case(zgw)
    publish = {"Authorization": zgw_token(*zgw._publisher)}
    message = {"kanaal": "zaken", "hoofdObject": zaak, "resource": "zaak", "resourceUrl": zaak, "actie": "update",
               "aanmaakdatum": "2026-01-01T10:00:00Z", "kenmerken": {"bronorganisatie": zgw.rsin}}
    assert requests.post(zgw.nrc_root + "notificaties", json=message, headers=publish, timeout=5).status_code == 201
    refused(requests.post(zgw.nrc_root + "notificaties", json={**message, "kanaal": "besluiten"}, headers=publish,
                          timeout=5), 400, "message_kanaal")
    refused(requests.post(zgw.nrc_root + "notificaties", json={**message, "kenmerken": {"a": "1", "b": "2"}},
                          headers=publish, timeout=5), 400, "kenmerken_inconsistent")
    refused(requests.post(zgw.nrc_root + "notificaties", json={**message, "aanmaakdatum": "gisteren"},
                          headers=publish, timeout=5), 400, "invalid")
    refused(requests.post(zgw.nrc_root + "abonnement", json={}, headers=publish, timeout=5), 403, "permission_denied")
