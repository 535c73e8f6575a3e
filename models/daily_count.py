"""Counts of notifications per service, day and outcome: what reporting keeps after the rows are purged.

No personal data: no recipient, content or reference, only how many notifications of a type, key type
and final status a service created on a (UTC) day.
"""
from __future__ import annotations

import datetime
from collections import Counter

import peewee

from models.db import BaseModel
from models.service import Service

# (service id, UTC day of created_at, notification type, key type, status)
CountKey = tuple[object, datetime.date, str, str, str]


class DailyCount(BaseModel):
    id = peewee.BigAutoField()
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)
    day = peewee.DateField()
    notification_type = peewee.CharField()
    key_type = peewee.CharField()
    status = peewee.CharField()
    count = peewee.BigIntegerField()

    class Meta:
        table_name = "daily_count"
        indexes = ((("service", "day", "notification_type", "key_type", "status"), True),)


def add_counts(counts: Counter[CountKey]) -> None:
    """Add to the stored counts (insert or add), so a second purge of the same day adds correctly.
    Call inside the transaction that deletes the counted rows: counted once exactly when deleted."""
    if not counts:
        return
    rows = [{"service": service_id, "day": day, "notification_type": kind, "key_type": key_type,
             "status": status, "count": n}
            for (service_id, day, kind, key_type, status), n in counts.items()]
    key = [DailyCount.service, DailyCount.day, DailyCount.notification_type, DailyCount.key_type,
           DailyCount.status]
    (DailyCount.insert_many(rows)
     .on_conflict(conflict_target=key, update={DailyCount.count: DailyCount.count + peewee.EXCLUDED.count})
     .execute())
