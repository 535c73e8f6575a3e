"""POST /providers/<provider>/inbound-sms: the gateway's webhook for texts sent to inbound numbers."""
from __future__ import annotations

import pytest

from config import get_settings
from models.notification import ReceivedText
from models.service import InboundNumber
from tests.factories import create_service

URL = "/providers/sms-gateway/inbound-sms"


def provider_auth(token: str | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token or get_settings().provider_webhook_token}"}


@pytest.fixture
def receiving():
    service = create_service(permissions=["sms", "inbound_sms"])
    InboundNumber.create(number="+3197010000001", service=service)
    return service


def post(client, body, headers=None):
    response = client.post(URL, json=body, headers=provider_auth() if headers is None else headers)
    return response.status_code, response.get_json()


def text(to="+31 970 1000 0001", sender="+31612345678", message="Hello", provider_id="gw-1"):
    return {"to": to, "from": sender, "message": message, "id": provider_id}


def test_stores_the_text_for_the_service_of_the_number(client, receiving):
    assert post(client, text()) == (200, {"result": "success"})
    [stored] = ReceivedText.select()
    assert (stored.service_id, stored.notify_number, stored.user_number, stored.content, stored.provider_reference) \
        == (receiving.id, "+3197010000001", "+31612345678", "Hello", "gw-1")


@pytest.mark.parametrize("to", ["3197010000001", "+3197010000001", "003197010000001", "+31 (970) 1000-0001"])
def test_number_spellings(client, receiving, to):
    assert post(client, text(to=to, provider_id=None))[0] == 200
    assert ReceivedText.select().count() == 1


def test_a_number_stored_without_plus(client):
    service = create_service(permissions=["inbound_sms"])
    InboundNumber.create(number="3197010000002", service=service)
    assert post(client, text(to="+3197010000002"))[0] == 200
    assert ReceivedText.get().service_id == service.id


def test_redelivery_with_the_same_provider_id_is_stored_once(client, receiving):
    for _ in range(2):
        assert post(client, text(provider_id="gw-7"))[0] == 200
    assert post(client, text(provider_id="gw-8"))[0] == 200
    assert ReceivedText.select().count() == 2


def test_without_the_permission_it_answers_success_and_stores_nothing(client):
    service = create_service(permissions=["sms"])
    InboundNumber.create(number="+3197010000003", service=service)
    assert post(client, text(to="+3197010000003")) == (200, {"result": "success"})
    assert ReceivedText.select().count() == 0


@pytest.mark.parametrize("assigned, active", [(False, True), (True, False)])
def test_unknown_unassigned_or_inactive_number(client, receiving, assigned, active):
    InboundNumber.create(number="+3197010000009", service=receiving if assigned else None, active=active)
    for to in ("+3197010000009", "+3100000000"):
        assert post(client, text(to=to)) == (404, {"status_code": 404, "errors": [
            {"error": "NoResultFound", "message": "Inbound number not found"}]})
    assert ReceivedText.select().count() == 0


def test_bad_body(client, receiving):
    assert post(client, {"to": "+3197010000001", "message": 5}) == (400, {"status_code": 400, "errors": [
        {"error": "ValidationError", "message": "from is a required property"},
        {"error": "ValidationError", "message": "message 5 is not of type string"},
    ]})
    response = client.post(URL, data="{not json", headers=provider_auth())
    assert response.status_code == 400


@pytest.mark.parametrize("headers, status, message", [
    ({}, 401, "Unauthorized: authentication token must be provided"),
    ({"Authorization": "Basic abc"}, 401, "Unauthorized: authentication bearer scheme must be used"),
    (provider_auth("wrong-token"), 403, "Invalid token: provider token not valid"),
])
def test_authentication(client, receiving, headers, status, message):
    assert post(client, text(), headers=headers) == (status, {"status_code": status, "errors": [
        {"error": "AuthError", "message": message}]})
    assert ReceivedText.select().count() == 0
