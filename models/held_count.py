"""Each service's notifications still held, counted per UTC day of creation and per kind: what the
dashboard and the usage page read for the days since the rollup (pipeline/stages/held_counts.py; read and
folded by the throughput seam, pipeline/infrastructure/throughput/shared.py), never the notifications
themselves.

The database keeps them (migration step 180): triggers on the notification table write a journal row
for what each statement (PostgreSQL) or each row (SQLite) added, removed or moved between kinds, in the
writer's own transaction, and the fold adds the journal into the counts. A kind's unknown values are
stored as '' (postage), 1 (rate multiplier) and -1 (billable units), so one unique index holds every
kind. No personal data: no recipient, content or reference.
"""
from __future__ import annotations

import datetime

import peewee

from models.db import BaseModel
from models.service import Service

UNKNOWN_UNITS = -1  # billable units not yet known (a notification not yet sent)
COUNTED_FROM_THE_START = datetime.date(2000, 1, 1)  # step 180 on a database without notifications

# (UTC day, notification type, key type, status, postage ("" if none), rate multiplier (1 if none),
#  billable units (None until known)): what a day's notifications are counted by.
HeldKey = tuple[datetime.date, str, str, str, str, int, int | None]


def as_date(value: object) -> datetime.date:
    """A day read back from the database."""
    # PostgreSQL answers DATE() with a date; on SQLite peewee reads it back through created_at's field,
    # as a datetime at midnight, or it is ISO text.
    if isinstance(value, datetime.datetime):
        return value.date()
    return value if isinstance(value, datetime.date) else datetime.date.fromisoformat(str(value))


class _Kind(BaseModel):
    """The kind a count is of; each table below has its own."""
    id = peewee.BigAutoField()
    day = peewee.DateField()
    notification_type = peewee.CharField()
    key_type = peewee.CharField()
    status = peewee.CharField()
    postage = peewee.CharField()
    rate_multiplier = peewee.IntegerField()
    billable_units = peewee.IntegerField()


class HeldCount(_Kind):
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False, backref="+")
    count = peewee.BigIntegerField()

    class Meta:
        table_name = "held_count"


HeldCount.add_index(HeldCount.index(HeldCount.service, HeldCount.day, HeldCount.notification_type,
                                    HeldCount.key_type, HeldCount.status, HeldCount.postage,
                                    HeldCount.rate_multiplier, HeldCount.billable_units, unique=True,
                                    name="held_count_kind"))


class HeldCountChange(_Kind):
    """The journal: written by the triggers, emptied by the fold. No foreign key: a service's delete
    cascades to its notifications, whose triggers write here after the service row is gone."""
    service_id = peewee.UUIDField()
    change = peewee.BigIntegerField()

    class Meta:
        table_name = "held_count_change"
        indexes = ((("service_id", "day"), False),)


class HeldCountStart(BaseModel):
    """One row: the first UTC day whose notifications are all counted (step 180 ran the day before, on
    a database holding notifications; or COUNTED_FROM_THE_START)."""
    id = peewee.IntegerField(primary_key=True)
    counted_from = peewee.DateField()

    class Meta:
        table_name = "held_count_start"
