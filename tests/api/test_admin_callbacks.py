"""PUT/GET/DELETE /admin/services/<id>/callbacks/<kind> and the attempts listing."""
from __future__ import annotations

import dataclasses
import datetime
import uuid

import pytest

import config
from models.callback_attempt import CallbackAttempt
from models.crypto import decrypt
from models.db import utcnow
from models.service import ServiceCallback
from tests.admin_helpers import admin_headers, errors
from tests.factories import create_service

URL = "https://service.example.nl/notify/status"


def path(service_id, kind="delivery-status"):
    return f"/admin/services/{service_id}/callbacks/{kind}"


def put(client, service_id, body, kind="delivery-status"):
    return client.put(path(service_id, kind), json=body, headers=admin_headers())


@pytest.mark.parametrize("kind", ["delivery-status", "inbound-sms"])
def test_set_read_replace_and_delete(client, service, kind):
    response = put(client, service.id, {"url": URL, "bearer_token": "secret-token-1"}, kind)
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {"id", "kind", "url", "updated_at"}
    assert (body["kind"], body["url"]) == (kind, URL)
    stored = ServiceCallback.get()
    assert decrypt(stored.bearer_token_encrypted) == "secret-token-1" and "secret-token-1" not in str(body)

    replaced = put(client, service.id, {"url": URL + "/v2", "bearer_token": "secret-token-2"}, kind).get_json()
    assert replaced["id"] == body["id"] and replaced["url"] == URL + "/v2"
    assert replaced["updated_at"] >= body["updated_at"]
    assert decrypt(ServiceCallback.get().bearer_token_encrypted) == "secret-token-2"
    assert client.get(path(service.id, kind), headers=admin_headers()).get_json() == replaced

    assert client.delete(path(service.id, kind), headers=admin_headers()).status_code == 204
    assert ServiceCallback.select().count() == 0
    for response in (client.get(path(service.id, kind), headers=admin_headers()),
                     client.delete(path(service.id, kind), headers=admin_headers())):
        assert errors(response) == (404, [("NoResultFound", "No result found")])


def test_one_callback_per_kind(client, service):
    put(client, service.id, {"url": URL, "bearer_token": "secret-token-1"}, "delivery-status")
    put(client, service.id, {"url": URL + "/inbound", "bearer_token": "secret-token-2"}, "inbound-sms")
    assert {(c.kind, c.url) for c in ServiceCallback.select()} == {
        ("delivery-status", URL), ("inbound-sms", URL + "/inbound")}


@pytest.mark.parametrize("body, message", [
    ({"url": "http://service.example.nl/x", "bearer_token": "secret-token"}, "url is not a valid https url"),
    ({"url": "service.example.nl", "bearer_token": "secret-token"}, "url is not a valid https url"),
    ({"url": "https://", "bearer_token": "secret-token"}, "url is not a valid https url"),
    ({"url": "https://a b.nl/", "bearer_token": "secret-token"}, "url is not a valid https url"),
    ({"url": URL, "bearer_token": "short"}, "bearer_token short is too short"),
    ({"url": URL, "bearer_token": 12345678901}, "bearer_token 12345678901 is not of type string"),
    ({"url": URL}, "bearer_token is a required property"),
    ({"bearer_token": "secret-token"}, "url is a required property"),
    ({"url": URL, "bearer_token": "secret-token", "x": 1},
     "Additional properties are not allowed (x was unexpected)"),
])
def test_validation(client, service, body, message):
    assert errors(put(client, service.id, body)) == (400, [("ValidationError", message)])
    assert ServiceCallback.select().count() == 0


def test_plain_http_only_to_loopback_and_only_when_allowed(client, service):
    # The test settings allow it (the receivers of tests/test_callbacks.py are plain http).
    for url in ("http://127.0.0.1:8080/cb", "http://localhost/cb", "http://[::1]:9/cb"):
        assert put(client, service.id, {"url": url, "bearer_token": "secret-token"}).status_code == 200
    assert errors(put(client, service.id, {"url": "http://10.0.0.1/cb", "bearer_token": "secret-token"})) == \
        (400, [("ValidationError", "url is not a valid https url")])
    before = config.get_settings()
    config._settings = dataclasses.replace(before, callbacks_allow_http_loopback=False)
    try:
        assert errors(put(client, service.id, {"url": "http://127.0.0.1/cb", "bearer_token": "secret-token"})) == \
            (400, [("ValidationError", "url is not a valid https url")])
    finally:
        config._settings = before


def test_unknown_kind_and_service(client, service):
    assert errors(put(client, service.id, {"url": URL, "bearer_token": "secret-token"}, "status")) == \
        (400, [("ValidationError", "kind status is not one of "
                                   "[delivery-status, inbound-sms, complaint, returned-letter, unsubscribe]")])
    assert put(client, uuid.uuid4(), {"url": URL, "bearer_token": "secret-token"}).status_code == 404
    assert errors(put(client, "nope", {"url": URL, "bearer_token": "secret-token"}))[0] == 400


def test_needs_the_admin_token(client, service):
    assert client.put(path(service.id), json={"url": URL, "bearer_token": "secret-token"}).status_code == 401
    assert client.get(path(service.id) + "/attempts").status_code == 401


def attempt(service, n, *, kind="delivery-status", minutes_ago=0.0, status_code=200):
    return CallbackAttempt.create(service=service, kind=kind, subject_id=uuid.uuid4(), event="delivered", url=URL,
                                  attempt=n, status_code=status_code, duration_ms=12,
                                  attempted_at=utcnow() - datetime.timedelta(minutes=minutes_ago))


def test_attempts_newest_first_with_a_limit(client, service):
    old = attempt(service, 1, minutes_ago=5, status_code=500)
    new = attempt(service, 2, minutes_ago=1)
    attempt(service, 1, kind="inbound-sms")
    attempt(create_service(), 1)  # another service's
    response = client.get(path(service.id) + "/attempts", headers=admin_headers())
    assert response.status_code == 200
    listed = response.get_json()["callback_attempts"]
    assert [a["id"] for a in listed] == [new.id, old.id]
    assert listed[1] == {"id": old.id, "notification_id": str(old.subject_id), "event": "delivered", "url": URL,
                         "attempt": 1, "status_code": 500, "error": None, "duration_ms": 12,
                         "attempted_at": listed[1]["attempted_at"]}
    limited = client.get(path(service.id) + "/attempts?limit=1", headers=admin_headers()).get_json()
    assert [a["id"] for a in limited["callback_attempts"]] == [new.id]
    inbound = client.get(path(service.id, "inbound-sms") + "/attempts", headers=admin_headers()).get_json()
    assert list(inbound["callback_attempts"][0])[1] == "received_text_id"


@pytest.mark.parametrize("limit, message", [
    ("0", "limit 0 is less than the minimum of 1"),
    ("501", "limit 501 is greater than the maximum of 500"),
    ("ten", "limit ten is not of type integer"),
])
def test_attempts_limit_validation(client, service, limit, message):
    response = client.get(path(service.id) + f"/attempts?limit={limit}", headers=admin_headers())
    assert errors(response) == (400, [("ValidationError", message)])
