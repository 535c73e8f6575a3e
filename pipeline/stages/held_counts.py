"""The counts of each service's notifications still held, per UTC day of creation and kind
(models/held_count.py): read for the dashboard, the usage page and the rollup instead of the
notifications, and the journal the database writes folded into them.

The triggers of migration step 180 write a journal row in the transaction of every statement (or, on
SQLite, every row) that adds, removes or changes the kind of notifications: an INSERT only, so writers
never wait on one another for a count. A read adds the journal rows not yet folded to the counts, so it
is exact at any moment; the fold only keeps the journal short (workers/periodic.py runs it every
FOLD_SECONDS), and a read costs a few rows per day and kind, whatever the number of notifications.
"""
from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Sequence

import peewee

from models.db import database, is_postgres
from models.held_count import COUNTED_FROM_THE_START, UNKNOWN_UNITS, HeldCount, HeldCountChange, HeldCountStart
from models.plain_rows import tuple_rows

FOLD_SECONDS = 10
FOLD_BATCH = 10_000  # journal rows per fold statement on PostgreSQL
FOLD_LOCK = 45_180  # the advisory lock that keeps folds one at a time (issue 45, step 180)

# (UTC day, notification type, key type, status, postage ("" if none), rate multiplier (1 if none),
#  billable units (None until known)): what a day's notifications are counted by.
HeldKey = tuple[datetime.date, str, str, str, str, int, int | None]

KIND_COLUMNS = ('"service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier",'
                ' "billable_units"')


def as_date(value: object) -> datetime.date:
    # PostgreSQL answers DATE() with a date; on SQLite peewee reads it back through created_at's field,
    # as a datetime at midnight, or it is ISO text.
    if isinstance(value, datetime.datetime):
        return value.date()
    return value if isinstance(value, datetime.date) else datetime.date.fromisoformat(str(value))


def counted_from() -> datetime.date:
    """The first UTC day whose notifications are all counted. A database that held notifications when
    step 180 ran is counted from the day after; the days before are read from their notifications."""
    row = HeldCountStart.select(HeldCountStart.counted_from).first()
    return as_date(row.counted_from) if row is not None else COUNTED_FROM_THE_START


def kept_counts(service_id: object, start: datetime.date, end: datetime.date,
                key_types: Sequence[str]) -> Counter[HeldKey]:
    """The service's held notifications created from day start up to (not including) day end, of the key
    types, per day and kind: the counts plus the journal not yet folded, in one statement (one snapshot,
    so a fold committing meanwhile neither hides nor doubles a row)."""
    parts = []
    for model, service, value in ((HeldCount, HeldCount.service, HeldCount.count),
                                  (HeldCountChange, HeldCountChange.service_id, HeldCountChange.change)):
        parts.append(model.select(*_kind(model), value.alias("n"))
                     .where((service == service_id) & (model.day >= start) & (model.day < end)
                            & model.key_type.in_(list(key_types))))
    held = (parts[0] + parts[1]).alias("held")
    kind = [held.c[field.name] for field in _kind(HeldCount)]
    query = peewee.Select([held], [*kind, peewee.fn.SUM(held.c.n)]).group_by(*kind).bind(database)
    counts: Counter[HeldKey] = Counter()
    for day, kind_of, key_type, status, postage, multiplier, units, n in tuple_rows(query):
        if n:
            counts[(as_date(day), kind_of, key_type, status, postage, multiplier,
                    None if units == UNKNOWN_UNITS else units)] += int(n)
    return counts


def _kind(model: type[HeldCount] | type[HeldCountChange]) -> list[peewee.Field]:
    return [model.day, model.notification_type, model.key_type, model.status, model.postage,
            model.rate_multiplier, model.billable_units]


_FOLD_POSTGRES = f"""
WITH "moved" AS (
    DELETE FROM "held_count_change" WHERE "id" IN (
        SELECT "id" FROM "held_count_change" ORDER BY "id" LIMIT %s FOR UPDATE SKIP LOCKED)
    RETURNING {KIND_COLUMNS}, "change"),
"added" AS (
    INSERT INTO "held_count" ({KIND_COLUMNS}, "count")
    SELECT {KIND_COLUMNS}, SUM("change") FROM "moved"
    WHERE EXISTS (SELECT 1 FROM "service" WHERE "service"."id" = "moved"."service_id")
    GROUP BY {KIND_COLUMNS} ORDER BY {KIND_COLUMNS}
    ON CONFLICT ({KIND_COLUMNS}) DO UPDATE SET "count" = "held_count"."count" + EXCLUDED."count"
    RETURNING "id", "count")
SELECT (SELECT COUNT(*) FROM "moved"), ARRAY(SELECT "id" FROM "added" WHERE "count" = 0)
"""

# SQLite: one writer at a time, so what the INSERT summed is the whole journal until the DELETE after it.
_FOLD_SQLITE = f"""
INSERT INTO "held_count" ({KIND_COLUMNS}, "count")
SELECT {KIND_COLUMNS}, SUM("change") FROM "held_count_change"
WHERE EXISTS (SELECT 1 FROM "service" WHERE "service"."id" = "held_count_change"."service_id")
GROUP BY {KIND_COLUMNS}
ON CONFLICT ({KIND_COLUMNS}) DO UPDATE SET "count" = "count" + excluded."count"
"""


def fold() -> int:
    """Add the journal into the counts and empty it; returns the journal rows folded. A kind that
    comes to zero is deleted; rows of a service deleted meanwhile are dropped."""
    if not is_postgres():
        with database.atomic():
            database.execute_sql(_FOLD_SQLITE)
            folded = database.execute_sql('DELETE FROM "held_count_change"').rowcount
            database.execute_sql('DELETE FROM "held_count" WHERE "count" = 0')
        return folded
    folded = 0
    while True:
        with database.atomic():
            # One fold at a time (a second one would only wait on the first's rows): skipped, not queued.
            if not database.execute_sql("SELECT pg_try_advisory_xact_lock(%s)", (FOLD_LOCK,)).fetchone()[0]:
                return folded
            moved, emptied = database.execute_sql(_FOLD_POSTGRES, (FOLD_BATCH,)).fetchone()
            if emptied:
                database.execute_sql('DELETE FROM "held_count" WHERE "id" = ANY(%s) AND "count" = 0', (emptied,))
        folded += moved
        if moved < FOLD_BATCH:
            return folded
