"""Closed days of each service's notifications summed once by the periodic rollup (pipeline/daily_rollup.py),
so the dashboard and the usage page read a few rows per day instead of the day's notifications.

A rolled-up day's figures are complete: the notifications still held plus those already purged (the
purge's daily_count / daily_billing). A day is rolled up again on each run until it is settled: old
enough that its notifications' outcomes are known, with none of them still on its way.
"""
from __future__ import annotations

import peewee

from models.db import BaseModel, utcnow
from models.service import Service


class RolledUpDay(BaseModel):
    """A (service, UTC day) whose figures are in the two tables below; settled ones are never read again."""
    id = peewee.BigAutoField()
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)
    day = peewee.DateField()
    settled = peewee.BooleanField(default=False)
    rolled_up_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "rolled_up_day"
        indexes = ((("service", "day"), True),)


class DailyStatusCount(BaseModel):
    """How many notifications of a type and key type a service created on a day, per status."""
    id = peewee.BigAutoField()
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)
    day = peewee.DateField()
    notification_type = peewee.CharField()
    key_type = peewee.CharField()
    status = peewee.CharField()
    count = peewee.BigIntegerField()

    class Meta:
        table_name = "daily_status_count"
        indexes = ((("service", "day", "notification_type", "key_type", "status"), True),)


class DailyUsage(BaseModel):
    """Billable notifications of a day (the key of models/daily_billing.py), held and purged together."""
    id = peewee.BigAutoField()
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)
    day = peewee.DateField()
    notification_type = peewee.CharField()
    postage = peewee.CharField()
    rate_multiplier = peewee.IntegerField()
    billable_units = peewee.IntegerField()
    count = peewee.BigIntegerField()

    class Meta:
        table_name = "daily_usage"
        indexes = ((("service", "day", "notification_type", "postage", "rate_multiplier", "billable_units"), True),)
