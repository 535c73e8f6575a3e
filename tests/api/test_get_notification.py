"""GET /v2/notifications/<id>: the spec's Notification with every key, only the caller's, only in retention."""
from __future__ import annotations

import datetime
import uuid

import pytest

from api.schema import schema_messages
from api.v2.notifications.notification_schemas import NOTIFICATION_KEYS, notification_response
from api.v2.notifications.serialise import PRECOMPILED_TEMPLATE_ID
from config import get_settings
from core.tokens import create_token
from models.db import utcnow
from tests.factories import create_key, create_notification, create_sample_template, create_service


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {create_token(key[-73:-37], key[-36:])}"}


def get(client, key, notification_id):
    response = client.get(f"/v2/notifications/{notification_id}", headers=auth(key))
    assert response.headers["Content-Type"] == "application/json"
    return response.status_code, response.get_json()


def _uri(template_id, version):
    return f"{get_settings().base_url}/v2/template/{template_id}/{version}"


NO_ADDRESS = {f"line_{n}": None for n in range(1, 8)} | {"postcode": None}


def test_sms_with_every_key(client, service, key):
    template = create_sample_template(service=service)
    created = datetime.datetime(2030, 1, 2, 3, 4, 5, 678901)
    n = create_notification(
        service=service, template=template, status="delivered", reference="ref-1", body="Hello Ann",
        created_at=utcnow() - datetime.timedelta(hours=1), sent_at=created, completed_at=created,
        billable_units=2, rate_multiplier=3, created_by_name="Ann Admin",
    )
    status, body = get(client, key, n.id)
    assert status == 200
    assert list(body) == NOTIFICATION_KEYS
    assert body == {
        "id": str(n.id), "reference": "ref-1", "email_address": None, "phone_number": "+31612345678",
        **NO_ADDRESS, "postage": None, "type": "sms", "status": "delivered",
        "template": {"id": str(template.id), "version": 1, "uri": _uri(template.id, 1)},
        "body": "Hello Ann", "subject": None,
        "created_at": n.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "created_by_name": "Ann Admin",
        "sent_at": "2030-01-02T03:04:05.678901Z", "completed_at": "2030-01-02T03:04:05.678901Z",
        "scheduled_for": None, "one_click_unsubscribe": None,
        "is_cost_data_ready": True, "cost_in_pounds": 0.1362,
        "cost_details": {"billable_sms_fragments": 2, "international_rate_multiplier": 3, "sms_rate": 0.0227},
        "fallback_for": None, "fallback_sent_as": None,
    }
    assert schema_messages(notification_response, body) == []


def test_sms_cost_not_ready_before_dispatch(client, service, key):
    n = create_notification(service=service)
    _, body = get(client, key, n.id)
    assert (body["is_cost_data_ready"], body["cost_in_pounds"], body["cost_details"]) == (False, None, {})


def test_email(client, service, key):
    template = create_sample_template(service=service, template_type="email")
    n = create_notification(service=service, template=template, subject="Hi Ann", body="Body",
                            one_click_unsubscribe_url="https://example.nl/unsub?u=1")
    status, body = get(client, key, n.id)
    assert status == 200
    assert body["email_address"] == "someone@example.nl"
    assert body["phone_number"] is None
    assert (body["subject"], body["one_click_unsubscribe"], body["postage"]) == (
        "Hi Ann", "https://example.nl/unsub?u=1", None)
    assert (body["is_cost_data_ready"], body["cost_in_pounds"], body["cost_details"]) == (True, 0.0, {})
    assert schema_messages(notification_response, body) == []


@pytest.mark.parametrize("internal, public", [
    ("created", "accepted"), ("sending", "accepted"), ("delivered", "received"),
    ("cancelled", "cancelled"), ("technical-failure", "technical-failure"),
])
def test_letter(client, service, key, internal, public):
    template = create_sample_template(service=service, template_type="letter")
    lines = ["A. Person", "Flat 2", "Dorpsstraat 1", "1234 AB  AMSTERDAM"]
    n = create_notification(service=service, template=template, status=internal, postage="first",
                            to="\n".join(lines), address={"lines": lines, "postcode": "1234 AB"}, billable_units=3)
    status, body = get(client, key, n.id)
    assert status == 200
    assert {k: body[k] for k in [*NO_ADDRESS, "postage", "status", "email_address", "phone_number"]} == {
        "line_1": "A. Person", "line_2": "Flat 2", "line_3": "Dorpsstraat 1", "line_4": "1234 AB  AMSTERDAM",
        "line_5": None, "line_6": None, "line_7": None, "postcode": "1234 AB", "postage": "first",
        "status": public, "email_address": None, "phone_number": None,
    }
    assert body["subject"] == "Letter heading"
    assert (body["is_cost_data_ready"], body["cost_in_pounds"], body["cost_details"]) == (
        True, 1.32, {"billable_sheets_of_paper": 3, "postage": "first"})
    assert schema_messages(notification_response, body) == []


def test_precompiled_letter_without_template_or_structured_address(client, service, key):
    n = create_notification(service=service, notification_type="letter", template_id=None, template_version=None,
                            address=None, to="A. Person\nDorpsstraat 1\n1234 AB  AMSTERDAM", precompiled=True,
                            status="pending-virus-check", body=None)
    _, body = get(client, key, n.id)
    assert body["template"] == {"id": str(PRECOMPILED_TEMPLATE_ID), "version": 1,
                                "uri": _uri(PRECOMPILED_TEMPLATE_ID, 1)}
    assert [body["line_1"], body["line_3"], body["line_4"]] == ["A. Person", "1234 AB  AMSTERDAM", None]
    assert (body["status"], body["body"]) == ("pending-virus-check", "")
    assert schema_messages(notification_response, body) == []


def test_any_key_type_of_the_service_reads_it(client, service):
    n = create_notification(service=service, key_type="test")
    for key_type in ("live", "team", "test"):
        status, _ = get(client, create_key(service=service, key_type=key_type, name=key_type), n.id)
        assert status == 200


def test_another_services_notification_is_not_found(client, key):
    n = create_notification(service=create_service())
    assert get(client, key, n.id) == (
        404, {"status_code": 404, "errors": [{"error": "NoResultFound", "message": "No result found"}]})


def test_unknown_id(client, key):
    assert get(client, key, uuid.uuid4())[0] == 404


@pytest.mark.parametrize("bad", ["1234-badly-formatted-id-7890", "0", "sms"])
def test_bad_id(client, key, bad):
    assert get(client, key, bad) == (
        400, {"status_code": 400, "errors": [{"error": "ValidationError", "message": "id is not a valid UUID"}]})


def test_retention_per_channel(client, key, service):
    service.sms_retention_days, service.email_retention_days = 3, 10
    service.save()
    sms_inside = create_notification(service=service, created_at=utcnow() - datetime.timedelta(days=2, hours=23))
    sms_outside = create_notification(service=service, created_at=utcnow() - datetime.timedelta(days=3, hours=1))
    email_inside = create_notification(service=service, notification_type="email",
                                       created_at=utcnow() - datetime.timedelta(days=9))
    assert get(client, key, sms_inside.id)[0] == 200
    assert get(client, key, sms_outside.id)[0] == 404
    assert get(client, key, email_inside.id)[0] == 200
