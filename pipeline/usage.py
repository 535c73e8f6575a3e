"""Usage and cost per service and month: what was sent with live keys, priced from the rate card.

Notifications still held are counted from their rows; those already purged from the daily billing
counts the retention purge keeps (models/daily_billing.py). A notification counts once it has its
billable units: a text or email once handed to a provider, a letter once with the printer (a letter
that never left, cancelled or failed its checks, costs nothing although its sheets are known).
"""
from __future__ import annotations

import datetime
from collections import Counter
from typing import Any

import peewee

from models.daily_billing import BillingKey, DailyBilling, billing_key
from models.notification import Notification
from pipeline import statuses
from pipeline.prices import letter_cost, sms_cost

BILLED_LETTER_STATUSES = (statuses.SENDING, statuses.DELIVERED, statuses.RETURNED_LETTER)


def is_billable(notification_type: str, key_type: str, status: str, billable_units: int | None) -> bool:
    if key_type == "test" or billable_units is None:
        return False
    return notification_type != "letter" or status in BILLED_LETTER_STATUSES


def _month(year: int, month: int) -> tuple[datetime.datetime, datetime.datetime]:
    start = datetime.datetime(year, month, 1)
    return start, datetime.datetime(year + (month == 12), month % 12 + 1, 1)


def _held(service_id: object, start: datetime.datetime, end: datetime.datetime) -> Counter[BillingKey]:
    day = peewee.fn.DATE(Notification.created_at)
    rows = (Notification.select(day.alias("day"), Notification.notification_type, Notification.postage,
                                Notification.rate_multiplier, Notification.billable_units,
                                peewee.fn.COUNT(Notification.id).alias("n"))
            .where((Notification.service == service_id) & (Notification.key_type != "test")
                   & (Notification.created_at >= start) & (Notification.created_at < end)
                   & Notification.billable_units.is_null(False)
                   & ((Notification.notification_type != "letter") | Notification.status.in_(BILLED_LETTER_STATUSES)))
            .group_by(day, Notification.notification_type, Notification.postage, Notification.rate_multiplier,
                      Notification.billable_units)
            .dicts())
    counts: Counter[BillingKey] = Counter()
    for row in rows:
        created = datetime.datetime.combine(_as_date(row["day"]), datetime.time())
        counts[billing_key(service_id, created, row["notification_type"], row["postage"], row["rate_multiplier"],
                           row["billable_units"])] += row["n"]
    return counts


def _as_date(value: Any) -> datetime.date:
    # PostgreSQL answers DATE() with a date, SQLite with its ISO text.
    return value if isinstance(value, datetime.date) else datetime.date.fromisoformat(str(value))


def _purged(service_id: object, start: datetime.datetime, end: datetime.datetime) -> Counter[BillingKey]:
    rows = DailyBilling.select().where((DailyBilling.service == service_id) & (DailyBilling.day >= start.date())
                                       & (DailyBilling.day < end.date()))
    return Counter({(service_id, row.day, row.notification_type, row.postage, row.rate_multiplier,
                     row.billable_units): row.count for row in rows})


def monthly_usage(service_id: object, year: int, month: int) -> dict[str, Any]:
    start, end = _month(year, month)
    sms = {"notifications": 0, "billable_units": 0, "cost_in_pounds": 0.0}
    email = {"notifications": 0, "cost_in_pounds": 0.0}
    letter = {"notifications": 0, "billable_sheets": 0, "cost_in_pounds": 0.0}
    unpriced = 0
    for (_, day, kind, postage, multiplier, units), n in (_held(service_id, start, end)
                                                         + _purged(service_id, start, end)).items():
        if kind == "email":
            email["notifications"] += n
            continue
        if kind == "sms":
            sms["notifications"] += n
            sms["billable_units"] += n * units * multiplier
            priced = sms_cost(units, multiplier, day)
            cost = priced[0] if priced else None
            target = sms
        else:
            letter["notifications"] += n
            letter["billable_sheets"] += n * units
            cost = letter_cost(postage, units, day)
            target = letter
        if cost is None:
            unpriced += n
        else:
            target["cost_in_pounds"] = round(target["cost_in_pounds"] + n * cost, 4)
    return {
        "service_id": str(service_id), "month": f"{year:04d}-{month:02d}", "sms": sms, "email": email,
        "letter": letter, "total_cost_in_pounds": round(sms["cost_in_pounds"] + letter["cost_in_pounds"], 4),
        "unpriced_notifications": unpriced,  # no rate was valid on their day: add one to price them
    }
