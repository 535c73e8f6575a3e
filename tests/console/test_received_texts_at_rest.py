"""Received texts are stored encrypted, as sent content is: the raw column holds no plaintext, while
the API, the console's conversations and the inbound callback read them as they were written. Texts
stored in clear before are sealed by a migration, a batch at a time."""
from __future__ import annotations

import uuid

import peewee

from config import get_settings
from models.db import database
from models.migrations import SchemaVersion, migrate, steps as migrations
from models.notification import ReceivedText
from models.service import InboundNumber
from tests.api.test_get_notification import auth
from tests.console.service_pages import signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_key, create_service

SECRET = "Mijn BSN is 123456782 — bel me terug"


def _raw_contents() -> dict[str, str]:
    table = peewee.Table(ReceivedText._meta.table_name, ("id", "content")).bind(database)
    rows = table.select(table.id, table.content).tuples()
    return {str(uuid.UUID(str(text_id))): content for text_id, content in rows}


def test_a_received_text_is_stored_sealed_and_read_back_by_the_api_and_the_console(client, console_app):
    service = create_service(permissions=["sms", "inbound_sms"])
    InboundNumber.create(number="+3197010000001", service=service)
    response = client.post("/providers/sms-gateway/inbound-sms",
                           json={"to": "+3197010000001", "from": "+31612345678", "message": SECRET, "id": "gw-1"},
                           headers={"Authorization": f"Bearer {get_settings().provider_webhook_token}"})
    assert response.status_code == 200

    [(text_id, stored)] = _raw_contents().items()
    assert stored.startswith("v2:") and "123456782" not in stored and "BSN" not in stored

    listed = client.get("/v2/received-text-messages", headers=auth(create_key(service=service)))
    assert [t["content"] for t in listed.get_json()["received_text_messages"]] == [SECRET]

    member = create_console_user(service=service, permissions=["view_activity"])
    page = signed_in_client(console_app, member.user).get(f"/services/{service.id}/conversations/{text_id}")
    assert page.status_code == 200
    assert "Mijn BSN is 123456782 — bel me terug" in page.get_data(as_text=True)


def test_texts_stored_in_clear_before_are_sealed_by_the_migration_in_batches(monkeypatch):
    service = create_service(permissions=["sms", "inbound_sms"])
    table = peewee.Table(ReceivedText._meta.table_name).bind(database)
    plain = {uuid.uuid4(): f"old text {n}" for n in range(5)}
    # Written as the model wrote them before: the content column as it came in.
    for text_id, content in plain.items():
        table.insert(id=ReceivedText.id.db_value(text_id), service_id=ReceivedText.service.db_value(service.id),
                     notify_number="+3197010000001", user_number="+31612345678", content=content,
                     created_at=ReceivedText.created_at.default()).execute()
    already = ReceivedText.create(service=service, notify_number="+3197010000001", user_number="+31612345678",
                                  content="sealed when it came in")
    sealed_before = _raw_contents()[str(already.id)]

    SchemaVersion.delete().where(SchemaVersion.version == 130).execute()
    monkeypatch.setattr(migrations, "RECEIVED_TEXT_BATCH", 2)
    assert migrate() == [130]

    raw = _raw_contents()
    assert all(value.startswith("v2:") and "old text" not in value for value in raw.values())
    assert raw[str(already.id)] == sealed_before  # not sealed twice
    assert {t.id: t.content for t in ReceivedText.select() if t.id in plain} == plain
    assert migrate() == []
