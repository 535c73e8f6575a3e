"""The reads through the official Python client (notifications-python-client 13), against a real socket."""
from __future__ import annotations

import datetime
import uuid

import pytest
import requests
from notifications_python_client import NotificationsAPIClient
from notifications_python_client.errors import HTTPError

from config import get_settings
from models.db import utcnow
from models.notification import Notification, ReceivedText
from models.service import InboundNumber
from tests.factories import create_key, create_notification, create_sample_template, create_service


@pytest.fixture
def service():
    return create_service(permissions=["sms", "email", "letter", "inbound_sms"])


@pytest.fixture
def live(service, live_server):
    return NotificationsAPIClient(create_key(service=service), base_url=live_server)


def minutes_ago(minutes: float) -> datetime.datetime:
    return utcnow() - datetime.timedelta(minutes=minutes)


def test_get_notification_by_id(live, service):
    template = create_sample_template(service=service, template_type="email")
    n = create_notification(service=service, template=template, key_type="test", status="delivered",
                            subject="Hi", body="Hello Ann", reference="r1")
    got = live.get_notification_by_id(str(n.id))
    assert (got["id"], got["type"], got["status"], got["email_address"], got["body"], got["reference"]) == (
        str(n.id), "email", "delivered", "someone@example.nl", "Hello Ann", "r1")
    assert got["template"] == {"id": str(template.id), "version": 1,
                               "uri": f"{get_settings().base_url}/v2/template/{template.id}/1"}
    with pytest.raises(HTTPError) as missing:
        live.get_notification_by_id(str(uuid.uuid4()))
    assert (missing.value.status_code, missing.value.message) == (
        404, [{"error": "NoResultFound", "message": "No result found"}])
    with pytest.raises(HTTPError) as bad:
        live.get_notification_by_id("not-a-uuid")
    assert (bad.value.status_code, bad.value.message) == (
        400, [{"error": "ValidationError", "message": "id is not a valid UUID"}])


def test_get_all_notifications_filters_and_cursor(live, service):
    sms = create_notification(service=service, status="delivered", reference="batch-1", created_at=minutes_ago(4))
    email = create_notification(service=service, notification_type="email", status="sending",
                                reference="batch-1", created_at=minutes_ago(3))
    letter = create_notification(service=service, notification_type="letter", status="created",
                                 created_at=minutes_ago(2))

    def listed(**filters):
        return [n["id"] for n in live.get_all_notifications(**filters)["notifications"]]

    assert listed() == [str(letter.id), str(email.id), str(sms.id)]
    assert listed(status="delivered") == [str(sms.id)]
    assert listed(status="accepted") == [str(letter.id)]
    assert listed(template_type="email") == [str(email.id)]
    assert listed(reference="batch-1") == [str(email.id), str(sms.id)]
    assert listed(older_than=str(email.id)) == [str(sms.id)]
    assert listed(include_jobs=True) == [str(letter.id), str(email.id), str(sms.id)]
    [letter_json] = live.get_all_notifications(template_type="letter")["notifications"]
    assert (letter_json["status"], letter_json["line_1"], letter_json["postage"]) == (
        "accepted", "A. Person", "second")
    with pytest.raises(HTTPError) as bad:
        live.get_all_notifications(status="lost")
    assert bad.value.status_code == 400
    assert bad.value.message[0]["message"].startswith("status lost is not one of [cancelled, created,")


def test_iterator_walks_many_rows_sharing_one_timestamp(live, service):
    moment = minutes_ago(1)
    Notification.insert_many([
        {"id": uuid.uuid4(), "service": service.id, "key_type": "live", "notification_type": "sms",
         "to": "+31612345678", "status": "delivered", "created_at": moment} for _ in range(263)
    ]).execute()
    create_notification(service=service, created_at=moment - datetime.timedelta(seconds=1))
    walked = [n["id"] for n in live.get_all_notifications_iterator()]
    assert len(walked) == 264 == len(set(walked))
    assert set(walked) == {str(row.id) for row in Notification.select(Notification.id)}
    assert len([n for n in live.get_all_notifications_iterator(status="delivered")]) == 263


def test_key_types_and_services_are_separate(live_server, live, service):
    mine = {t: create_notification(service=service, key_type=t) for t in ("live", "team", "test")}
    create_notification(service=create_service())
    for key_type in ("team", "test"):
        client = NotificationsAPIClient(create_key(service=service, key_type=key_type, name=key_type),
                                        base_url=live_server)
        assert [n["id"] for n in client.get_all_notifications()["notifications"]] == [str(mine[key_type].id)]
    assert [n["id"] for n in live.get_all_notifications()["notifications"]] == [str(mine["live"].id)]
    other = create_notification(service=create_service())
    with pytest.raises(HTTPError) as foreign:
        live.get_notification_by_id(str(other.id))
    assert foreign.value.status_code == 404


def test_received_texts_posted_to_the_inbound_route_come_back_newest_first(live_server, live, service):
    InboundNumber.create(number="+3197010000001", service=service)
    for n in range(3):
        response = requests.post(
            f"{live_server}/providers/simulated/inbound-sms",
            json={"to": "+3197010000001", "from": "+31612345678", "message": f"text {n}", "id": f"sim-{n}"},
            headers={"Authorization": f"Bearer {get_settings().provider_webhook_token}"}, timeout=10)
        assert (response.status_code, response.json()) == (200, {"result": "success"})
    page = live.get_received_texts()
    assert [t["content"] for t in page["received_text_messages"]] == ["text 2", "text 1", "text 0"]
    assert {(t["user_number"], t["notify_number"], t["service_id"]) for t in page["received_text_messages"]} == {
        ("+31612345678", "+3197010000001", str(service.id))}
    second = page["received_text_messages"][1]["id"]
    assert [t["content"] for t in live.get_received_texts(older_than=second)["received_text_messages"]] == [
        "text 0"]


def test_received_texts_iterator(live, service):
    moment = minutes_ago(1)
    ReceivedText.insert_many([
        {"id": uuid.uuid4(), "service": service.id, "notify_number": "+3197010000001",
         "user_number": "+31612345678", "content": f"m{n}", "created_at": moment} for n in range(260)
    ]).execute()
    walked = [t["id"] for t in live.get_received_texts_iterator()]
    assert len(walked) == 260 == len(set(walked))
