"""Recording accepted sends: the sends that arrive together are counted against today's limits in
one Redis round trip, their rows go to the database in one INSERT, and once it has committed their
deliveries start together (one Redis round trip each kind)."""
from __future__ import annotations

from collections.abc import Callable

import peewee

from core.limits import DailyCount, count_daily, release_daily
from models.db import database, insert_rows, open_connection
from models.notification import Notification
from pipeline.batching import Batcher
from workers.enqueue import enqueued_together

Enqueue = Callable[[list[Notification]], None]


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
        release_daily([key for counts in daily for key, _, _ in counts])
        raise
    release_daily([key for row, outcome, counts in zip(rows, written, daily, strict=True)
                   if outcome is not row for key, _, _ in counts])
    return written


def _write(batch: list[tuple[Notification, Enqueue, tuple[DailyCount, ...]]]) -> list[Notification | Exception]:
    refusals = count_daily([daily for _, _, daily in batch])
    counted = [(row, daily) for (row, _, daily), refused in zip(batch, refusals, strict=True) if refused is None]
    written = iter(_insert([row for row, _ in counted], [daily for _, daily in counted]))
    outcomes: list[Notification | Exception] = [next(written) if refused is None else refused for refused in refusals]
    inserted: dict[Enqueue, list[Notification]] = {}
    for (row, enqueue, _), outcome in zip(batch, outcomes, strict=True):
        if outcome is row:
            inserted.setdefault(enqueue, []).append(row)
    with enqueued_together():
        for enqueue, notifications in inserted.items():
            enqueue(notifications)
    return outcomes


# Two milliseconds' wait under load takes the rows per INSERT from about 3.4 to 6 on PostgreSQL at
# the accept benchmark's load, for a fifth more sends per second; requests then take 10-15 ms, so
# the wait is a small part of them.
_writer = Batcher("notification-writer", _write, linger_seconds=0.002)


def record(row: Notification, enqueue: Enqueue, daily: tuple[DailyCount, ...] = ()) -> Notification:
    """Count the send against today's limits (raising TooManyRequestsError, counting nothing, when
    any would be exceeded), INSERT row, committed, then enqueue([row]) after the commit, together with
    the sends of other requests waiting at the same moment. Raises what any step raised."""
    if database.in_transaction():
        raise RuntimeError("record() commits on a thread of its own: call it outside a transaction")
    return _writer.submit((row, enqueue, daily))
