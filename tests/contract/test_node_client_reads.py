"""The reads through the official Node client (notifications-node-client 8.4), run by `node` on call.js."""
from __future__ import annotations

import datetime
import functools
import re
import uuid

import pytest

from models.db import utcnow
from models.notification import Notification, ReceivedText
from models.service import LetterContact
from models.template import update_template
from tests.contract.node_client import node_call, requires_node
from tests.factories import create_key, create_notification, create_sample_template, create_service

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)

pytestmark = requires_node


@pytest.fixture
def service():
    return create_service(permissions=["sms", "email", "letter", "inbound_sms"])


@pytest.fixture
def run(service, live_server):
    return functools.partial(node_call, live_server, create_key(service=service))


def test_get_notification_by_id(run, service):
    n = create_notification(service=service, notification_type="letter", status="delivered", billable_units=1)
    status, data = run("getNotificationById", str(n.id))
    assert status == 200
    assert (data["id"], data["type"], data["status"], data["line_1"], data["line_3"], data["cost_details"]) == (
        str(n.id), "letter", "received", "A. Person", "1234 AB  AMSTERDAM",
        {"billable_sheets_of_paper": 1, "postage": "second"})
    assert run("getNotificationById", str(uuid.uuid4())) == (404, {
        "status_code": 404, "errors": [{"error": "NoResultFound", "message": "No result found"}]})


def test_get_notifications_filters_and_walk(run, service):
    moment = utcnow() - datetime.timedelta(minutes=1)
    Notification.insert_many([
        {"id": uuid.uuid4(), "service": service.id, "key_type": "live", "notification_type": "sms",
         "to": "+31612345678", "status": "delivered", "created_at": moment} for _ in range(261)
    ]).execute()
    email = create_notification(service=service, notification_type="email", status="sending", reference="nd-1")
    create_notification(service=service, key_type="test")  # another key type: never listed
    create_notification(service=create_service())  # another service: never listed

    status, data = run("getNotifications", "email", "sending", "nd-1")
    assert status == 200
    assert [n["id"] for n in data["notifications"]] == [str(email.id)]

    seen: list[str] = []
    older_than = None
    while True:
        _, data = run("getNotifications", "sms", "delivered", None, older_than)
        if not data["notifications"]:
            assert set(data["links"]) == {"current"}
            break
        seen += [n["id"] for n in data["notifications"]]
        older_than = UUID.search(data["links"]["next"]).group(0)  # as a Node user finds the cursor
    assert len(seen) == 261 == len(set(seen))

    status, data = run("getNotifications", "fax")
    assert (status, data["errors"]) == (400, [
        {"error": "ValidationError", "message": "template_type fax is not one of [sms, email, letter]"}])


def test_get_received_texts(run, service):
    now = utcnow()
    texts = [ReceivedText.create(service=service, notify_number="+3197010000001", user_number="+31612345678",
                                 content=f"text {n}", created_at=now - datetime.timedelta(minutes=10 - n))
             for n in range(3)]
    status, data = run("getReceivedTexts")
    assert status == 200
    assert [t["content"] for t in data["received_text_messages"]] == ["text 2", "text 1", "text 0"]
    assert UUID.search(data["links"]["next"]).group(0) == str(texts[0].id)
    status, data = run("getReceivedTexts", str(texts[1].id))
    assert [t["id"] for t in data["received_text_messages"]] == [str(texts[0].id)]


def test_template_version_carries_its_own_contact_block(run, service):
    LetterContact.create(service=service, contact_block="Default office", is_default=True)
    template = create_sample_template(service=service, template_type="letter", body="Dear ((name))")
    update_template(template, created_by="editor@example.nl",
                    letter_contact=LetterContact.create(service=service, contact_block="PO Box 1"))
    status, first = run("getTemplateByIdAndVersion", str(template.id), 1)
    assert (status, first["version"], first["letter_contact_block"]) == (200, 1, None)
    status, second = run("getTemplateByIdAndVersion", str(template.id), 2)
    assert (status, second["version"], second["letter_contact_block"]) == (200, 2, "PO Box 1")
