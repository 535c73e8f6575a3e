"""The daily store: each service's figures per (UTC) day, what the dashboard, usage and billing read
instead of a day's notifications, and what reporting keeps once the notifications are purged.

Two writers keep two kinds of rows, told apart by `purged`, so neither ever writes a row the other does:
- the purge adds what it deletes to its own rows (purged), in the transaction that deletes them: a
  running tally, never replaced, so a day's figures survive its notifications;
- the periodic rollup replaces a closed day's figures (not purged) with the notifications still held
  plus the purge's tally at that moment. A day is rolled up again on each run until it is settled: old
  enough that its notifications' outcomes are known, none still on its way.
A rolled-up day is read from the rollup's rows alone; a day never rolled up from the purge's tally.

No personal data: no recipient, content or reference, only how many notifications of a kind a service
created on a day.
"""
from __future__ import annotations

import datetime
from collections import Counter

import peewee

from models.db import BaseModel, utcnow
from models.service import Service

# (service id, UTC day of created_at, notification type, key type, status)
CountKey = tuple[object, datetime.date, str, str, str]
# (service id, UTC day of created_at, notification type, postage ("" for sms), rate multiplier
#  (1 for letters), billable units of one notification)
BillingKey = tuple[object, datetime.date, str, str, int, int]


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


class DailyFigure(BaseModel):
    """How many notifications of one kind a service created on a day; each table below names the kind."""
    id = peewee.BigAutoField()
    # No backref: this class has no table of its own; its subclasses make theirs.
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False, backref="+")
    day = peewee.DateField()
    purged = peewee.BooleanField(default=False)  # the purge's tally, or (False) the rollup's figure
    count = peewee.BigIntegerField()


class DailyStatusCount(DailyFigure):
    """Per type, key type and status: what the dashboard shows."""
    notification_type = peewee.CharField()
    key_type = peewee.CharField()
    status = peewee.CharField()

    class Meta:
        table_name = "daily_status_count"
        indexes = ((("service", "day", "notification_type", "key_type", "status", "purged"), True),)


class DailyUsage(DailyFigure):
    """Billable notifications per price: what usage and billing price, past the retention too."""
    notification_type = peewee.CharField()
    postage = peewee.CharField()
    rate_multiplier = peewee.IntegerField()
    billable_units = peewee.IntegerField()

    class Meta:
        table_name = "daily_usage"
        indexes = ((("service", "day", "notification_type", "postage", "rate_multiplier", "billable_units",
                     "purged"), True),)


def unique_key(model: type[DailyFigure]) -> list[peewee.Field]:
    """The fields a row of the table is unique by (its unique index), `purged` last."""
    return [model._meta.fields[name] for name in model._meta.indexes[0][0]]


def billing_key(service_id: object, created_at: datetime.datetime, notification_type: str, postage: str | None,
                rate_multiplier: int | None, billable_units: int) -> BillingKey:
    return (service_id, created_at.date(), notification_type, postage or "", rate_multiplier or 1, billable_units)


def add_purged(counts: Counter[CountKey], billing: Counter[BillingKey]) -> None:
    """Add to the purge's tally (insert or add), so a second purge of the same day adds correctly.
    Call inside the transaction that deletes the counted rows: counted once exactly when deleted."""
    _add(DailyStatusCount, counts)
    _add(DailyUsage, billing)


def _add(model: type[DailyFigure], counts: Counter) -> None:
    if not counts:
        return
    key = unique_key(model)
    names = [field.name for field in key]
    rows = [dict(zip(names, (*values, True), strict=True), count=n) for values, n in counts.items()]
    (model.insert_many(rows)
     .on_conflict(conflict_target=key, update={model.count: model.count + peewee.EXCLUDED.count})
     .execute())
