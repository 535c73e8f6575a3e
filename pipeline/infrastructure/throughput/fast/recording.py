"""Recording accepted sends: the sends that arrive together are counted against today's limits in
one Redis round trip, their rows go to the database in one INSERT by cached SQL, and once it has
committed their deliveries start together (each enqueue called once with the rows it started)."""
from __future__ import annotations

import peewee

from models.db import database, open_connection
from models.notification import Notification
from pipeline.infrastructure import daily_limits
from pipeline.infrastructure.daily_limits import DailyCount
from pipeline.infrastructure.throughput import Enqueue, WithRow
from pipeline.infrastructure.throughput.fast.batching import Batcher
from pipeline.infrastructure.throughput.fast.sql import insert_rows

INSERT_ROWS = 200  # per INSERT statement: SQLite takes at most 32,766 parameters in one


def _insert_alone(row: Notification) -> Notification | Exception:
    try:
        insert_rows(Notification, [row])
    except peewee.IntegrityError as exc:
        return exc
    return row


def _insert(rows: list[Notification], daily: list[tuple[DailyCount, ...]]) -> list[Notification | Exception]:
    """INSERT the rows; a row not written gives back its counts against today's limits."""
    if not rows:
        return []
    open_connection()  # this thread's own connection, replaced if the server dropped it
    try:
        insert_rows(Notification, rows)  # one autocommitted statement: all rows or none
        return list(rows)
    except peewee.IntegrityError:
        # A row the database refuses (its service deleted meanwhile) must not fail the others.
        written = [_insert_alone(row) for row in rows]
    except BaseException:
        daily_limits.give_back([key for counts in daily for key, _, _ in counts])
        raise
    daily_limits.give_back([key for row, outcome, counts in zip(rows, written, daily, strict=True)
                            if outcome is not row for key, _, _ in counts])
    return written


def _write(batch: list[tuple[Notification, Enqueue, tuple[DailyCount, ...]]]) -> list[Notification | Exception]:
    refusals = daily_limits.count_sends([daily for _, _, daily in batch])
    counted = [(row, daily) for (row, _, daily), refused in zip(batch, refusals, strict=True) if refused is None]
    written = iter(_insert([row for row, _ in counted], [daily for _, daily in counted]))
    outcomes: list[Notification | Exception] = [next(written) if refused is None else refused for refused in refusals]
    inserted: dict[Enqueue, list[Notification]] = {}
    for (row, enqueue, _), outcome in zip(batch, outcomes, strict=True):
        if outcome is row:
            inserted.setdefault(enqueue, []).append(row)
    for enqueue, notifications in inserted.items():
        enqueue(notifications)  # once per batch with the rows it started (workers.enqueue)
    return outcomes


# Two milliseconds' wait under load takes the rows per INSERT from about 3.4 to 6 on PostgreSQL at
# the accept benchmark's load, for a fifth more sends per second; requests then take 10-15 ms, so
# the wait is a small part of them.
_writer = Batcher("notification-writer", _write, linger_seconds=0.002)


def record(rows: list[Notification], enqueue: Enqueue, daily: tuple[DailyCount, ...] = (),
           with_row: WithRow | None = None) -> None:
    """A lone row outside a transaction, with nothing saved beside it, shares its round trips with
    the sends of other requests waiting at the same moment; other rows are written in the caller's
    transaction (or one of their own)."""
    if len(rows) == 1 and with_row is None and not database.in_transaction():
        _writer.submit((rows[0], enqueue, daily))
        return
    counted = daily_limits.reserve_sends(daily, len(rows))
    try:
        with database.atomic():
            for start in range(0, len(rows), INSERT_ROWS):
                insert_rows(Notification, rows[start:start + INSERT_ROWS])
            if with_row is not None:
                for row in rows:
                    with_row(row)
            enqueue(rows)
    except BaseException:
        daily_limits.give_back(counted)
        raise
