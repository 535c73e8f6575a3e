"""Recording accepted sends: the rows of sends that arrive together go to the database in one
INSERT, and once it has committed their deliveries start together (one Redis round trip each kind)."""
from __future__ import annotations

from collections.abc import Callable

import peewee

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


def _write(batch: list[tuple[Notification, Enqueue]]) -> list[Notification | Exception]:
    open_connection()  # this thread's own connection, replaced if the server dropped it
    rows = [row for row, _ in batch]
    try:
        insert_rows(Notification, rows)  # one autocommitted statement: all rows or none
        outcomes: list[Notification | Exception] = list(rows)
    except peewee.IntegrityError:
        # A row the database refuses (its service deleted meanwhile) must not fail the others.
        outcomes = [_insert_alone(row) for row in rows]
    inserted: dict[Enqueue, list[Notification]] = {}
    for (row, enqueue), outcome in zip(batch, outcomes, strict=True):
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


def record(row: Notification, enqueue: Enqueue) -> Notification:
    """INSERT row, committed, then enqueue([row]) after the commit, together with the rows of
    other requests waiting at the same moment. Raises what either raised."""
    if database.in_transaction():
        raise RuntimeError("record() commits on a thread of its own: call it outside a transaction")
    return _writer.submit((row, enqueue))
