"""GET /v2/received-text-messages: newest first, pages of 250, only the last 7 days, cursor rules."""
from __future__ import annotations

import datetime
import uuid

import pytest

from api.schema import schema_messages
from api.v2.received_text.received_text_schemas import received_texts_page_response
from config import get_settings
from models.db import utcnow
from models.notification import ReceivedText
from tests.api.test_get_notification import auth
from tests.factories import create_service


@pytest.fixture
def service():
    return create_service(permissions=["sms", "inbound_sms"])


def received(service, *, minutes_ago: float = 1, content: str = "Hi") -> ReceivedText:
    return ReceivedText.create(service=service, notify_number="+3197010000001", user_number="+31612345678",
                               content=content, created_at=utcnow() - datetime.timedelta(minutes=minutes_ago))


def page(client, key, query=""):
    response = client.get(f"/v2/received-text-messages{query}", headers=auth(key))
    body = response.get_json()
    if response.status_code == 200:
        assert schema_messages(received_texts_page_response, body) == []
    return response.status_code, body


def base():
    return f"{get_settings().base_url}/v2/received-text-messages"


def ids(body):
    return [t["id"] for t in body["received_text_messages"]]


def test_exact_shape(client, service, key):
    old = received(service, minutes_ago=5, content="first")
    new = received(service, minutes_ago=1, content="second")
    assert page(client, key) == (200, {
        "received_text_messages": [{
            "id": str(t.id), "user_number": "+31612345678", "notify_number": "+3197010000001",
            "created_at": t.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "service_id": str(service.id),
            "content": content,
        } for t, content in ((new, "second"), (old, "first"))],
        "links": {"current": base(), "next": f"{base()}?older_than={old.id}"},
    })


def test_empty(client, key):
    assert page(client, key) == (200, {"received_text_messages": [], "links": {"current": base()}})


def test_only_the_last_seven_days_and_only_the_callers_service(client, service, key):
    recent = received(service, minutes_ago=60 * 24 * 7 - 5)
    received(service, minutes_ago=60 * 24 * 7 + 5)
    received(create_service(), minutes_ago=1)
    assert ids(page(client, key)[1]) == [str(recent.id)]


def test_cursor(client, service, key):
    texts = [received(service, minutes_ago=m) for m in (3, 2, 1)]
    for name in ("older_than", "other_than"):
        _, body = page(client, key, f"?{name}={texts[2].id}")
        assert ids(body) == [str(texts[1].id), str(texts[0].id)]
        assert body["links"] == {"current": f"{base()}?{name}={texts[2].id}",
                                 "next": f"{base()}?older_than={texts[0].id}"}


def test_cursor_older_than_seven_days_unknown_or_foreign_gives_an_empty_page(client, service, key):
    received(service, minutes_ago=1)
    expired = received(service, minutes_ago=60 * 24 * 8)
    foreign = received(create_service(), minutes_ago=2)
    for cursor in (expired.id, uuid.uuid4(), foreign.id):
        assert ids(page(client, key, f"?older_than={cursor}")[1]) == []


def test_pages_of_250_over_one_timestamp(client, service, key):
    moment = utcnow() - datetime.timedelta(minutes=1)
    ReceivedText.insert_many([{"id": uuid.uuid4(), "service": service.id, "notify_number": "1", "user_number": "2",
                               "content": "x", "created_at": moment} for _ in range(300)]).execute()
    _, first = page(client, key)
    _, second = page(client, key, "?" + first["links"]["next"].split("?", 1)[1])
    assert (len(ids(first)), len(ids(second))) == (250, 50)
    assert len(set(ids(first)) | set(ids(second))) == 300


def test_bad_cursor_and_unknown_parameter(client, key):
    assert page(client, key, "?older_than=nope&page=2") == (400, {"status_code": 400, "errors": [
        {"error": "ValidationError", "message": "Additional properties are not allowed (page was unexpected)"},
        {"error": "ValidationError", "message": "older_than is not a valid UUID"},
    ]})
