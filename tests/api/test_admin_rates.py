"""The rate card through the admin API, the costs the v2 API reports from it, and usage per month."""
from __future__ import annotations

import datetime

from models.db import utcnow
from pipeline.stages import retention
from tests.admin_helpers import admin_headers, errors, service_headers
from tests.factories import create_key, create_notification, create_service


def post_rate(client, **body):
    return client.post("/admin/rates", json=body, headers=admin_headers())


def test_the_default_rates_are_listed(client):
    response = client.get("/admin/rates", headers=admin_headers())
    assert response.status_code == 200
    rates = [(r["notification_type"], r["postage"], r["valid_from"], r["rate"], r["sheet_rate"])
             for r in response.get_json()["rates"]]
    assert rates == [
        ("sms", None, "2020-01-01", 0.0227, None),
        ("letter", "economy", "2020-01-01", 0.59, 0.05),
        ("letter", "europe", "2020-01-01", 1.63, 0.05),
        ("letter", "first", "2020-01-01", 1.22, 0.05),
        ("letter", "rest-of-world", "2020-01-01", 1.63, 0.05),
        ("letter", "second", "2020-01-01", 0.68, 0.05),
    ]


def test_a_new_price_applies_from_its_day_on(client):
    service = create_service()
    key = create_key(service=service)
    today = utcnow().replace(hour=12)
    yesterday = today - datetime.timedelta(days=1)
    created = post_rate(client, notification_type="sms", valid_from=today.date().isoformat(), rate=0.03)
    assert created.status_code == 201
    assert post_rate(client, notification_type="letter", postage="second", valid_from=today.date().isoformat(),
                     rate=0.8, sheet_rate=0.1).status_code == 201
    before = create_notification(service=service, billable_units=2, rate_multiplier=1, created_at=yesterday)
    after = create_notification(service=service, billable_units=2, rate_multiplier=1, created_at=today)
    letter = create_notification(service=service, notification_type="letter", billable_units=3, status="sending",
                                 created_at=today)

    def cost(notification):
        body = client.get(f"/v2/notifications/{notification.id}", headers=service_headers(key)).get_json()
        return body["cost_in_pounds"], body["cost_details"]

    assert cost(before) == (0.0454, {"billable_sms_fragments": 2, "international_rate_multiplier": 1,
                                     "sms_rate": 0.0227})
    assert cost(after) == (0.06, {"billable_sms_fragments": 2, "international_rate_multiplier": 1, "sms_rate": 0.03})
    assert cost(letter) == (1.0, {"billable_sheets_of_paper": 3, "postage": "second"})

    rate_id = created.get_json()["id"]
    assert client.delete(f"/admin/rates/{rate_id}", headers=admin_headers()).status_code == 204
    assert cost(after)[0] == 0.0454  # the earlier price again
    assert errors(client.delete(f"/admin/rates/{rate_id}", headers=admin_headers())) == \
        (404, [("NoResultFound", "No result found")])


def test_bad_rates_are_refused(client):
    status, problems = errors(post_rate(client, notification_type="letter", valid_from="2026-13-01", rate=-1))
    assert status == 400 and sorted(problems) == [
        ("ValidationError", "postage is a required property"),
        ("ValidationError", "rate -1 is less than the minimum of 0"),
        ("ValidationError", "sheet_rate is a required property"),
        ("ValidationError", "valid_from is not a valid date (YYYY-MM-DD)"),
    ]
    assert errors(post_rate(client, notification_type="sms", postage="first", valid_from="2026-12-01", rate=0.1)) == \
        (400, [("ValidationError", "postage and sheet_rate apply to letter rates only")])
    assert errors(post_rate(client, notification_type="sms", valid_from="2020-01-01", rate=0.1)) == \
        (400, [("BadRequestError", "A sms rate valid from 2020-01-01 already exists")])


def test_usage_per_service_and_month_survives_the_purge(client):
    service, other = create_service(), create_service(name="Other")
    november = datetime.datetime(2026, 11, 10, 12)
    for fields in (
        {"billable_units": 2, "rate_multiplier": 1, "status": "delivered"},
        {"billable_units": 1, "rate_multiplier": 3, "status": "sent", "international": True},
        {"billable_units": 1, "rate_multiplier": 1, "status": "delivered", "key_type": "test"},  # test key: free
        {"billable_units": None, "status": "technical-failure"},  # never reached a provider
        {"notification_type": "email", "billable_units": 0, "status": "delivered"},
        {"notification_type": "letter", "billable_units": 2, "status": "delivered"},
        {"notification_type": "letter", "billable_units": 2, "status": "cancelled"},  # never printed
        {"billable_units": 1, "rate_multiplier": 1, "created_at": datetime.datetime(2026, 12, 1)},  # next month
    ):
        create_notification(service=service, **{"created_at": november, **fields})
    create_notification(service=other, billable_units=5, rate_multiplier=1, created_at=november, status="delivered")
    expected = {
        "service_id": str(service.id), "month": "2026-11",
        "sms": {"notifications": 2, "billable_units": 5, "cost_in_pounds": 0.1135},
        "email": {"notifications": 1, "cost_in_pounds": 0.0},
        "letter": {"notifications": 1, "billable_sheets": 2, "cost_in_pounds": 0.73},
        "total_cost_in_pounds": 0.8435, "unpriced_notifications": 0,
    }

    def usage(**query):
        return client.get(f"/admin/services/{service.id}/usage", query_string=query, headers=admin_headers())

    assert usage(year=2026, month=11).get_json() == expected
    assert retention.purge_notifications(now=datetime.datetime(2026, 11, 30)).notifications >= 8
    assert usage(year=2026, month=11).get_json() == expected  # priced from the counts the purge kept
    assert errors(usage(year=2026, month=13)) == (400, [("ValidationError",
                                                         "month 13 is greater than the maximum of 12")])
    assert errors(usage(year=2026)) == (400, [("ValidationError", "month is a required property")])
    assert errors(usage(year="x", month=1)) == (400, [("ValidationError", "year x is not of type integer")])
