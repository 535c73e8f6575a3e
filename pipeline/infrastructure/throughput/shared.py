"""The operations of the throughput seam where speed does not matter, one implementation that both
Reference and Fast inherit: a claim given back (a send that waits to try again), and the held counts
(read for a dashboard or the rollup, folded every few seconds in the background). Two versions of
the fold's statements would be two chances to get a statement that runs beside every writer wrong,
for no gain (docs/decisions/code-and-tooling.md#how-is-an-operation-of-the-throughput-seam-written-once).

The held counts: the triggers of migration step 180 write a journal row in the transaction of every
statement (or, on SQLite, every row) that adds, removes or changes the kind of notifications: an
INSERT only, so writers never wait on one another for a count. A read adds the journal rows not yet
folded to the counts, so it is exact at any moment; the fold only keeps the journal short, and a read
costs a few rows per day and kind, whatever the number of notifications.
"""
from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Sequence
from typing import Any

import peewee

from models.db import database, is_postgres
from models.held_count import UNKNOWN_UNITS, HeldCount, HeldCountChange, HeldKey, as_date
from models.notification import Notification
from models.plain_rows import tuple_rows

FOLD_BATCH = 10_000  # journal rows per fold statement on PostgreSQL
FOLD_LOCK = 45_180  # the advisory lock that keeps folds one at a time (issue 45, step 180)

KIND_COLUMNS = ('"service_id", "day", "notification_type", "key_type", "status", "postage", "rate_multiplier",'
                ' "billable_units"')

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


class Shared:
    def release(self, notification_id: Any, retry_at: datetime.datetime | None) -> None:
        (Notification.update(dispatch_started_at=None, retry_at=retry_at)
         .where(Notification.id == notification_id).execute())

    def held_counts(self, service_id: object, start: datetime.date, end: datetime.date,
                    key_types: Sequence[str]) -> Counter[HeldKey]:
        parts = []
        for model, service, value in ((HeldCount, HeldCount.service, HeldCount.count),
                                      (HeldCountChange, HeldCountChange.service_id, HeldCountChange.change)):
            parts.append(model.select(*_kind(model), value.alias("n"))
                         .where((service == service_id) & (model.day >= start) & (model.day < end)
                                & model.key_type.in_(list(key_types))))
        # One statement, so one snapshot of the counts and the journal.
        held = (parts[0] + parts[1]).alias("held")
        kind = [held.c[field.name] for field in _kind(HeldCount)]
        query = peewee.Select([held], [*kind, peewee.fn.SUM(held.c.n)]).group_by(*kind).bind(database)
        counts: Counter[HeldKey] = Counter()
        for day, kind_of, key_type, status, postage, multiplier, units, n in tuple_rows(query):
            if n:
                counts[(as_date(day), kind_of, key_type, status, postage, multiplier,
                        None if units == UNKNOWN_UNITS else units)] += int(n)
        return counts

    def fold_held_counts(self) -> int:
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


def _kind(model: type[HeldCount] | type[HeldCountChange]) -> list[peewee.Field]:
    return [model.day, model.notification_type, model.key_type, model.status, model.postage,
            model.rate_multiplier, model.billable_units]
