"""SMS gateways: configured ones appear in the database, operators change them without a restart and
every change is kept; the pure selection and the Redis circuit breaker all workers share."""
from __future__ import annotations

import dataclasses
import json
import uuid

import pytest

import config
from models import cache
from pipeline.infrastructure.providers.sms import gateways
from pipeline.infrastructure.providers.sms.circuit import CircuitBreaker
from pipeline.infrastructure.providers.sms.pacing import Limits
from pipeline.infrastructure.providers.sms.selection import Candidate, order
from pipeline.infrastructure.providers.sms.slow_receipts import is_slow
from tests.admin_helpers import admin_headers, errors
from workers.broker import current_broker

broker = current_broker()  # conftest built it through the web app's factory


@pytest.fixture
def configured():
    before = config.get_settings()
    config._settings = dataclasses.replace(before, sms_gateway_url="http://127.0.0.1:9/a", sms_gateway_token="tok-a",
                                           sms_gateways=json.dumps([{"name": "gw-b", "url": "http://127.0.0.1:9/b",
                                                                     "token": "tok-b", "priority": 30}]))
    gateways._synced.clear()
    try:
        yield config._settings
    finally:
        config._settings = before
        gateways._synced.clear()


def listed(client) -> dict[str, dict]:
    response = client.get("/admin/sms-gateways", headers=admin_headers())
    assert response.status_code == 200
    return {g["name"]: g for g in response.get_json()["sms_gateways"]}


def test_configured_gateways_are_stored_and_changed_without_a_restart(client, configured):
    found = listed(client)
    assert {name: (g["priority"], g["supports_international"], g["active"], g["from_configuration"], g["in_rotation"])
            for name, g in found.items()} == {"http-gateway": (10, True, True, True, True),
                                              "gw-b": (30, False, True, True, True)}
    assert "token" not in found["gw-b"]
    gw_b = found["gw-b"]["id"]
    changed = client.patch(f"/admin/sms-gateways/{gw_b}", json={"priority": 70, "supports_international": True},
                           headers=admin_headers())
    assert changed.status_code == 200 and changed.get_json()["priority"] == 70
    cache.clear()
    assert [c.priority for c in gateways.in_use(configured) if c.name == "gw-b"] == [70]  # what the workers read
    assert errors(client.patch(f"/admin/sms-gateways/{gw_b}", json={"url": "https://elsewhere.example.nl"},
                               headers=admin_headers())) == \
        (400, [("ValidationError",
                "type, url and credentials of a configured gateway are changed in its configuration")])

    history = client.get(f"/admin/sms-gateways/{gw_b}/history", headers=admin_headers()).get_json()["changes"]
    assert [(h["changed_by"], h["changes"]) for h in history] == [
        ("admin-api", {"priority": [30, 70], "supports_international": [False, True]}),
        ("configuration", {"type": [None, "json"], "url": [None, "http://127.0.0.1:9/b"], "token": [None, "***"],
                           "priority": [None, 30],
                           "supports_international": [None, False], "active": [None, True]}),
    ]


def test_operators_add_gateways(client):
    body = {"name": "gw-c", "url": "https://sms.example.nl/api", "token": "secret", "priority": 5}
    created = client.post("/admin/sms-gateways", json=body, headers=admin_headers())
    assert created.status_code == 201
    assert created.get_json()["name"] == "gw-c" and created.get_json()["from_configuration"] is False
    assert errors(client.post("/admin/sms-gateways", json=body, headers=admin_headers())) == \
        (400, [("BadRequestError", "An SMS gateway named 'gw-c' already exists")])
    status, problems = errors(client.post("/admin/sms-gateways", json={"name": "Bad Name", "url": "ftp://x",
                                                                        "priority": 101}, headers=admin_headers()))
    assert status == 400 and sorted(m for _, m in problems) == [
        "name Bad Name does not match ^[a-z0-9][a-z0-9-]{0,62}$",
        "priority 101 is greater than the maximum of 100",
        "url is not a valid https url",
    ]
    assert client.patch(f"/admin/sms-gateways/{uuid.uuid4()}", json={}, headers=admin_headers()).status_code == 404
    gw_c = created.get_json()["id"]
    assert client.patch(f"/admin/sms-gateways/{gw_c}", json={"url": "https://other.example.nl", "token": "new"},
                        headers=admin_headers()).status_code == 200
    [latest, _] = client.get(f"/admin/sms-gateways/{gw_c}/history", headers=admin_headers()).get_json()["changes"]
    assert latest["changes"] == {"url": ["https://sms.example.nl/api", "https://other.example.nl"],
                                 "token": ["***", "***"]}


TWILIO_SID = "AC" + "0123456789abcdef" * 2


def test_operators_add_a_gateway_of_each_provider_type_and_no_secret_comes_back(client):
    def add(body: dict) -> tuple[int, dict]:
        response = client.post("/admin/sms-gateways", json=body, headers=admin_headers())
        return response.status_code, response.get_json()

    status, twilio = add({"name": "tw", "type": "twilio", "token": "auth-token", "account_sid": TWILIO_SID,
                          "messaging_service_sid": "MG" + "0" * 32})
    base = config.get_settings().base_url
    assert status == 201 and "auth-token" not in json.dumps(twilio) and "token" not in twilio
    assert (twilio["type"], twilio["url"], twilio["account_sid"], twilio["webhooks"]) == (
        "twilio", "https://api.twilio.com", TWILIO_SID,
        {"delivery_reports": f"{base}/providers/tw/status-reports",
         "received_texts": f"{base}/providers/tw/received-texts"})
    status, spryng = add({"name": "sp", "type": "spryng", "token": "api-key"})
    token = gateways.webhook_token(config.get_settings(), "sp")
    assert status == 201 and spryng["url"] == "https://rest.spryngsms.com/v1" and spryng["webhooks"] == {
        "delivery_reports": f"{base}/providers/sp/status-reports/{token}",
        "received_texts": f"{base}/providers/sp/received-texts/{token}"}
    assert token != gateways.webhook_token(config.get_settings(), "cm")  # one gateway's address opens no other's
    assert add({"name": "cm", "type": "cm", "token": "product-token"})[1]["url"] == "https://gw.messaging.cm.com"
    assert listed(client)["cm"]["type"] == "cm"

    assert errors(client.post("/admin/sms-gateways", json={"name": "sp2", "type": "spryng"}, headers=admin_headers())) \
        == (400, [("ValidationError", "a spryng gateway needs a token (its API key)")])
    no_sid = (400, [("ValidationError", "a twilio gateway needs an account_sid")])
    assert errors(client.post("/admin/sms-gateways", json={"name": "tw2", "type": "twilio", "token": "t"},
                              headers=admin_headers())) == no_sid
    assert errors(client.post("/admin/sms-gateways", json={"name": "js"}, headers=admin_headers())) == \
        (400, [("ValidationError", "url is a required property")])
    assert errors(client.patch(f"/admin/sms-gateways/{twilio['id']}", json={"account_sid": None},
                               headers=admin_headers())) == no_sid
    [first] = client.get(f"/admin/sms-gateways/{twilio['id']}/history", headers=admin_headers()).get_json()["changes"]
    assert first["changes"]["token"] == [None, "***"]


def test_configured_gateways_of_each_type(client):
    before = config.get_settings()
    config._settings = dataclasses.replace(before, sms_gateways=json.dumps([
        {"name": "tw", "type": "twilio", "token": "t", "account_sid": TWILIO_SID},
        {"name": "cm", "type": "cm", "token": "p", "url": "http://127.0.0.1:9/cm"}]))
    gateways._synced.clear()
    try:
        found = listed(client)
        assert (found["tw"]["type"], found["tw"]["url"], found["tw"]["from_configuration"]) == \
            ("twilio", "https://api.twilio.com", True)
        assert (found["cm"]["type"], found["cm"]["url"]) == ("cm", "http://127.0.0.1:9/cm")
        for broken, problem in [({"name": "x", "type": "spryng"}, "a spryng gateway needs a token (its API key)"),
                                ({"name": "x", "type": "sms77", "url": "http://127.0.0.1:9/x"},
                                 "type must be one of json, spryng, cm, twilio")]:
            with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
                gateways.configured(dataclasses.replace(before, sms_gateways=json.dumps([broken])))
    finally:
        config._settings = before
        gateways._synced.clear()


CANDIDATES = [Candidate("a", 70, False), Candidate("b", 30, True), Candidate("c", 0, True),
              Candidate("off", 100, True, active=False)]


def test_selection_spreads_by_priority_and_falls_back_to_the_rest():
    assert order(CANDIDATES, international=False, draw=0.0) == ["a", "b", "c"]
    assert order(CANDIDATES, international=False, draw=0.69) == ["a", "b", "c"]
    assert order(CANDIDATES, international=False, draw=0.71) == ["b", "a", "c"]
    assert order(CANDIDATES, international=True, draw=0.0) == ["b", "c"]  # a cannot send abroad
    assert order(CANDIDATES, international=False, unavailable={"a"}, draw=0.0) == ["b", "c"]
    assert order(CANDIDATES, international=False, unavailable={"a", "b"}, draw=0.5) == ["c"]
    assert order(CANDIDATES, international=False, unavailable={"a", "b", "c"}, draw=0.5) == []
    # Slow receipts halve a's share: 35 against 30, so a draw past 35/65 goes to b first.
    assert order(CANDIDATES, international=False, slow={"a"}, draw=0.53) == ["a", "b", "c"]
    assert order(CANDIDATES, international=False, slow={"a"}, draw=0.55) == ["b", "a", "c"]


def test_slow_means_over_thirty_percent_without_a_receipt():
    assert not is_slow(sent=9, waiting=9)  # too few to tell
    assert not is_slow(sent=10, waiting=3)
    assert is_slow(sent=10, waiting=4)


def test_the_circuit_opens_after_the_threshold_and_closes_after_probation():
    namespace = f"test-circuit-{uuid.uuid4().hex[:6]}"
    breaker = CircuitBreaker(broker.client, namespace, threshold=3, window=60, cooldown=1)
    other = CircuitBreaker(broker.client, namespace, threshold=3, window=60, cooldown=1)  # another worker
    assert [breaker.record_failure("a") for _ in range(3)] == [False, False, True]
    assert other.unavailable(["a", "b"]) == {"a"}
    broker.client.delete(f"{namespace}:sms-circuit:a:open")  # the cool-down has passed
    assert other.unavailable(["a", "b"]) == set()
    assert breaker.record_failure("a") is True  # on probation: one failure takes it out again
    broker.client.delete(f"{namespace}:sms-circuit:a:open")
    breaker.record_success("a")
    assert [breaker.record_failure("a") for _ in range(2)] == [False, False]  # closed: the full threshold again
    for key in broker.client.scan_iter(f"{namespace}:*"):
        broker.client.delete(key)


def test_a_success_clears_the_failures_the_reading_before_its_call_found():
    namespace = f"test-circuit-{uuid.uuid4().hex[:6]}"
    other_worker = CircuitBreaker(broker.client, namespace, threshold=2, window=60, cooldown=30)
    assert other_worker.record_failure("a") is False
    one_send = CircuitBreaker(broker.client, namespace, threshold=2, window=60, cooldown=30)
    assert one_send.unavailable(["a", "b"]) == set()
    one_send.record_success("a")
    assert [other_worker.record_failure("a") for _ in range(2)] == [False, True]  # counting from zero again
    for key in broker.client.scan_iter(f"{namespace}:*"):
        broker.client.delete(key)


def test_a_gateway_slow_with_its_receipts_is_marked_for_every_worker(client, configured):
    import datetime

    from models.db import utcnow
    from tests.factories import create_notification, create_service
    from workers.sms_rotation import check_slow_receipts, slow

    service = create_service()
    ten_minutes_ago = utcnow() - datetime.timedelta(minutes=10)
    for n in range(10):
        for gateway, waiting in (("gw-b", n < 4), ("http-gateway", n < 3)):
            create_notification(service=service, status="sending" if waiting else "delivered", sent_by=gateway,
                                sent_at=ten_minutes_ago, created_at=ten_minutes_ago)
    check_slow_receipts()
    assert slow() == {"gw-b"}  # 4 of 10 without a receipt is over 30%; 3 of 10 is not
    assert {name: g["slow_receipts"] for name, g in listed(client).items()} == {"gw-b": True, "http-gateway": False}


def test_the_slow_receipt_rule_across_provider_types(client):
    import datetime

    from models.db import utcnow
    from tests.factories import create_notification, create_service
    from tests.provider_gateways import provider_gateways
    from workers.sms_rotation import check_slow_receipts, slow

    with provider_gateways(["spryng", "twilio", "cm"]):
        service = create_service()
        ten_minutes_ago = utcnow() - datetime.timedelta(minutes=10)
        for n in range(10):
            for gateway, waiting in (("spryng-gw", n < 4), ("twilio-gw", n < 3), ("cm-gw", n < 5)):
                create_notification(service=service, status="sending" if waiting else "delivered", sent_by=gateway,
                                    sent_at=ten_minutes_ago, created_at=ten_minutes_ago)
        check_slow_receipts()
        assert slow() == {"spryng-gw", "cm-gw"}
        assert {name: g["slow_receipts"] for name, g in listed(client).items()} == {
            "spryng-gw": True, "twilio-gw": False, "cm-gw": True}


def test_each_gateway_has_a_pace_its_types_default_until_an_operator_sets_it(client):
    created = client.post("/admin/sms-gateways", json={"name": "gw-t", "type": "twilio", "token": "t",
                                                       "account_sid": "AC" + "0" * 32}, headers=admin_headers())
    assert created.status_code == 201
    assert (created.get_json()["max_per_second"], created.get_json()["max_in_flight"]) == (100, 50)  # Twilio's
    gateway_id = created.get_json()["id"]

    changed = client.patch(f"/admin/sms-gateways/{gateway_id}", json={"max_per_second": 5, "max_in_flight": 2},
                           headers=admin_headers())
    assert (changed.get_json()["max_per_second"], changed.get_json()["max_in_flight"]) == (5, 2)
    cache.clear()
    [row] = [row for row in gateways.in_use(config.get_settings()) if row.name == "gw-t"]
    assert gateways.limits(row) == Limits(5, 2)  # what every worker paces it by
    back = client.patch(f"/admin/sms-gateways/{gateway_id}", json={"max_per_second": None}, headers=admin_headers())
    assert back.get_json()["max_per_second"] == 100

    assert errors(client.patch(f"/admin/sms-gateways/{gateway_id}", json={"max_per_second": 0, "max_in_flight": 1.5},
                               headers=admin_headers())) == (400, [
        ("ValidationError", "max_in_flight 1.5 is not of type integer, null"),
        ("ValidationError", "max_per_second 0 is less than the minimum of 1"),
    ])
    history = client.get(f"/admin/sms-gateways/{gateway_id}/history", headers=admin_headers()).get_json()["changes"]
    assert [h["changes"] for h in history[:2]] == [{"max_per_second": [5, None]},
                                                  {"max_per_second": [None, 5], "max_in_flight": [None, 2]}]


def test_a_configured_gateways_pace_is_checked_when_it_is_read(configured):
    config._settings = dataclasses.replace(configured, sms_gateways=json.dumps(
        [{"name": "gw-b", "url": "http://127.0.0.1:9/b", "max_per_second": 0}]))
    assert gateways.configuration_problems(config._settings) == [
        "SMS_GATEWAYS: SMS gateway gw-b: max_per_second must be a whole number from 1 to 10000"]
