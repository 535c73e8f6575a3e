"""Billable units per service and day, kept when the notifications are purged, so usage of a month
past the retention period can still be priced (pipeline/usage.py)."""
from __future__ import annotations

import datetime
from collections import Counter

import peewee

from models.db import BaseModel
from models.service import Service

# (service id, UTC day of created_at, notification type, postage ("" for sms), rate multiplier
#  (1 for letters), billable units of one notification)
BillingKey = tuple[object, datetime.date, str, str, int, int]


class DailyBilling(BaseModel):
    id = peewee.BigAutoField()
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)
    day = peewee.DateField()
    notification_type = peewee.CharField()
    postage = peewee.CharField()
    rate_multiplier = peewee.IntegerField()
    billable_units = peewee.IntegerField()
    count = peewee.BigIntegerField()

    class Meta:
        table_name = "daily_billing"
        indexes = ((("service", "day", "notification_type", "postage", "rate_multiplier", "billable_units"), True),)


def billing_key(service_id: object, created_at: datetime.datetime, notification_type: str, postage: str | None,
                rate_multiplier: int | None, billable_units: int) -> BillingKey:
    return (service_id, created_at.date(), notification_type, postage or "", rate_multiplier or 1, billable_units)


def add_billing(counts: Counter[BillingKey]) -> None:
    """Add to the stored counts; call inside the transaction that deletes the counted rows."""
    if not counts:
        return
    rows = [{"service": service_id, "day": day, "notification_type": kind, "postage": postage,
             "rate_multiplier": multiplier, "billable_units": units, "count": n}
            for (service_id, day, kind, postage, multiplier, units), n in counts.items()]
    key = [DailyBilling.service, DailyBilling.day, DailyBilling.notification_type, DailyBilling.postage,
           DailyBilling.rate_multiplier, DailyBilling.billable_units]
    (DailyBilling.insert_many(rows)
     .on_conflict(conflict_target=key, update={DailyBilling.count: DailyBilling.count + peewee.EXCLUDED.count})
     .execute())
