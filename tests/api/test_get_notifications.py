"""GET /v2/notifications: filters, validation, keyset paging, links, key-type and service separation."""
from __future__ import annotations

import datetime
import uuid

import pytest

from api.schema import schema_messages
from api.v2.notifications.notification_schemas import STATUS_FILTERS, notifications_page_response
from config import get_settings
from models.db import utcnow
from models.notification import Notification
from pipeline.domain.statuses import FILTER_VALUES
from tests.api.test_get_notification import auth
from tests.factories import create_key, create_notification, create_service

STATUS_LIST = ("cancelled, created, sending, sent, delivered, pending, failed, technical-failure, "
               "temporary-failure, permanent-failure, pending-virus-check, validation-failed, virus-scan-failed, "
               "returned-letter, accepted, received")


def page(client, key, query=""):
    response = client.get(f"/v2/notifications{query}", headers=auth(key))
    body = response.get_json()
    if response.status_code == 200:
        assert schema_messages(notifications_page_response, body) == []
    return response.status_code, body


def ids(body):
    return [n["id"] for n in body["notifications"]]


def base():
    return f"{get_settings().base_url}/v2/notifications"


def at(minutes_ago: float) -> datetime.datetime:
    return utcnow() - datetime.timedelta(minutes=minutes_ago)


def test_the_schema_lists_the_status_filters_of_the_transition_table():
    assert STATUS_FILTERS == list(FILTER_VALUES)


def test_empty_page_has_only_current(client, key):
    assert page(client, key) == (200, {"notifications": [], "links": {"current": base()}})


def test_newest_first_with_links(client, service, key):
    old = create_notification(service=service, created_at=at(10))
    new = create_notification(service=service, created_at=at(1))
    status, body = page(client, key)
    assert status == 200
    assert ids(body) == [str(new.id), str(old.id)]
    assert body["links"] == {"current": base(), "next": f"{base()}?older_than={old.id}"}


def test_cursor_older_than_and_other_than(client, service, key):
    rows = [create_notification(service=service, created_at=at(m)) for m in (3, 2, 1)]
    for name in ("older_than", "other_than"):
        status, body = page(client, key, f"?{name}={rows[2].id}")
        assert ids(body) == [str(rows[1].id), str(rows[0].id)]
        assert body["links"] == {"current": f"{base()}?{name}={rows[2].id}",
                                 "next": f"{base()}?older_than={rows[0].id}"}
    assert page(client, key, f"?older_than={rows[0].id}")[1] == {
        "notifications": [], "links": {"current": f"{base()}?older_than={rows[0].id}"}}


def test_unknown_cursor_and_another_services_cursor_give_an_empty_page(client, service, key):
    create_notification(service=service)
    foreign = create_notification(service=create_service())
    for cursor in (uuid.uuid4(), foreign.id):
        assert ids(page(client, key, f"?older_than={cursor}")[1]) == []


def test_shared_timestamp_pages_without_loss_or_repeat(client, service, key):
    moment = at(5)
    Notification.insert_many([
        {"id": uuid.uuid4(), "service": service.id, "key_type": "live", "notification_type": "sms",
         "to": "+31612345678", "status": "created", "created_at": moment} for _ in range(600)
    ]).execute()
    seen, query = [], ""
    while True:
        _, body = page(client, key, query)
        if not body["notifications"]:
            break
        assert len(body["notifications"]) <= 250
        seen += ids(body)
        query = "?" + body["links"]["next"].split("?", 1)[1]
    assert len(seen) == 600 == len(set(seen))
    # The total order is (created_at DESC, id DESC): ties are broken by id.
    assert seen == [str(i) for i in sorted((uuid.UUID(s) for s in seen), key=lambda u: u.hex, reverse=True)]


def test_page_size_is_250(client, service, key):
    Notification.insert_many([
        {"id": uuid.uuid4(), "service": service.id, "key_type": "live", "notification_type": "email",
         "to": "a@example.nl", "status": "sending", "created_at": at(i / 100)} for i in range(251)
    ]).execute()
    assert len(ids(page(client, key)[1])) == 250


@pytest.mark.parametrize("key_type", ["live", "team", "test"])
def test_only_the_callers_key_type(client, service, key_type):
    rows = {t: create_notification(service=service, key_type=t) for t in ("live", "team", "test")}
    assert ids(page(client, create_key(service=service, key_type=key_type, name=key_type))[1]) == [
        str(rows[key_type].id)]


def test_only_the_callers_service(client, service, key):
    create_notification(service=create_service())
    mine = create_notification(service=service)
    assert ids(page(client, key)[1]) == [str(mine.id)]


def test_retention_per_channel(client, service, key):
    service.sms_retention_days, service.letter_retention_days = 2, 30
    service.save()
    old_sms = create_notification(service=service, created_at=at(60 * 24 * 3))
    old_letter = create_notification(service=service, notification_type="letter", created_at=at(60 * 24 * 20))
    old_email = create_notification(service=service, notification_type="email", created_at=at(60 * 24 * 8))
    recent_sms = create_notification(service=service, created_at=at(1))
    assert ids(page(client, key)[1]) == [str(recent_sms.id), str(old_letter.id)]
    assert old_sms and old_email


def test_filters(client, service, key):
    sms_delivered = create_notification(service=service, status="delivered", reference="a", created_at=at(5))
    sms_pending = create_notification(service=service, status="pending", reference="b", created_at=at(4))
    email_failed = create_notification(service=service, notification_type="email", status="temporary-failure",
                                       reference="a", created_at=at(3))
    letter_sending = create_notification(service=service, notification_type="letter", status="sending",
                                         created_at=at(2))
    letter_delivered = create_notification(service=service, notification_type="letter", status="delivered",
                                           created_at=at(1))
    cases = {
        "?status=delivered&status=pending": [letter_delivered, sms_pending, sms_delivered],
        "?status=failed": [email_failed],
        "?status=accepted&template_type=letter": [letter_sending],
        # accepted/received are letters' public names: only letters match them.
        "?status=received": [letter_delivered],
        "?status=accepted": [letter_sending],
        "?status=accepted&status=pending": [letter_sending, sms_pending],
        "?status=delivered": [letter_delivered, sms_delivered],
        "?template_type=email&template_type=sms": [email_failed, sms_pending, sms_delivered],
        "?reference=a": [email_failed, sms_delivered],
        "?reference=a&template_type=sms&status=delivered": [sms_delivered],
        "?status=&template_type=&reference=&older_than=&include_jobs=true": [
            letter_delivered, letter_sending, email_failed, sms_pending, sms_delivered],
    }
    for query, expected in cases.items():
        assert ids(page(client, key, query)[1]) == [str(n.id) for n in expected], query


def test_links_keep_the_query_and_put_the_cursor_first(client, service, key):
    reference = str(uuid.uuid4())  # a reference that looks like an id must not be taken for the cursor
    first = create_notification(service=service, reference=reference, status="sending", created_at=at(2))
    second = create_notification(service=service, reference=reference, status="sending", created_at=at(1))
    query = f"?status=sending&status=delivered&reference={reference}&older_than={second.id}&status="
    _, body = page(client, key, query)
    assert ids(body) == [str(first.id)]
    assert body["links"] == {
        "current": f"{base()}?status=sending&status=delivered&reference={reference}&older_than={second.id}",
        "next": f"{base()}?older_than={first.id}&status=sending&status=delivered&reference={reference}",
    }


def test_bad_filters_each_reported(client, key):
    status, body = page(client, key, "?status=foo&status=delivered&status=bar&template_type=fax&older_than=x")
    assert status == 400
    assert body == {"status_code": 400, "errors": [
        {"error": "ValidationError", "message": "older_than is not a valid UUID"},
        {"error": "ValidationError", "message": f"status foo is not one of [{STATUS_LIST}]"},
        {"error": "ValidationError", "message": f"status bar is not one of [{STATUS_LIST}]"},
        {"error": "ValidationError", "message": "template_type fax is not one of [sms, email, letter]"},
    ]}


def test_unknown_parameter(client, key):
    assert page(client, key, "?colour=red") == (400, {"status_code": 400, "errors": [
        {"error": "ValidationError", "message": "Additional properties are not allowed (colour was unexpected)"}]})
