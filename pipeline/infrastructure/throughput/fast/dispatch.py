"""The sends awaiting dispatch, read and claimed by SQL built once per shape, the reads and claims
that a worker's threads make at the same moment in one statement (docs/decisions/speed.md: how a
worker's threads read their notifications, how a live send bound for a real provider is claimed)."""
from __future__ import annotations

import datetime
import functools
import uuid
from collections.abc import Sequence
from typing import Any

from models.db import database, utcnow
from models.held_receipt import HeldReceipt
from models.notification import UNINDEXED_STATUS_SQL, Notification
from pipeline.domain.statuses import CREATED
from pipeline.infrastructure.throughput import Loaded
from pipeline.infrastructure.throughput.fast.batching import Batcher
from pipeline.infrastructure.throughput.fast.sql import column, column_names, compiled_sql, row_model

Row = tuple[tuple[str, ...], tuple]


def _awaiting(notification_ids: list[uuid.UUID]) -> list[Row | None]:
    sql = compiled_sql(("awaiting-dispatch", len(notification_ids)), lambda p: (
        f'SELECT * FROM "{Notification._meta.table_name}"'
        f' WHERE {column(Notification.id)} IN ({", ".join([p] * len(notification_ids))})'
        f" AND {UNINDEXED_STATUS_SQL} = '{CREATED}'"
        f" AND {column(Notification.dispatch_started_at)} IS NULL"))
    return _each_its_row(database.execute_sql(sql, [Notification.id.db_value(each) for each in notification_ids]),
                         notification_ids)


def _claim_many(notification_ids: list[uuid.UUID]) -> list[Row | None]:
    sql = compiled_sql(("claim-awaiting", len(notification_ids)), lambda p: (
        f'UPDATE "{Notification._meta.table_name}" SET {column(Notification.dispatch_started_at)} = {p}'
        f' WHERE {column(Notification.id)} IN ({", ".join([p] * len(notification_ids))})'
        f" AND {UNINDEXED_STATUS_SQL} = '{CREATED}'"
        f" AND {column(Notification.dispatch_started_at)} IS NULL AND {column(Notification.key_type)} <> 'test'"
        " RETURNING *"))
    params = [Notification.dispatch_started_at.db_value(utcnow()), *map(Notification.id.db_value, notification_ids)]
    # Read to the end: SQLite ends an UPDATE ... RETURNING's write only then.
    return _each_its_row(database.execute_sql(sql, params), notification_ids)


def _each_its_row(cursor: Any, notification_ids: list[uuid.UUID]) -> list[Row | None]:
    """The rows a statement found, handed to the requests that asked for them. An id asked for
    twice gets its row once."""
    names = column_names(cursor)
    id_at = names.index(Notification.id.column_name)
    rows = {Notification.id.python_value(row[id_at]): row for row in cursor.fetchall()}
    return [(names, row) if (row := rows.pop(each, None)) is not None else None for each in notification_ids]


_read_awaiting = Batcher("awaiting-dispatch", _awaiting)
_claim_awaiting = Batcher("claim-awaiting", _claim_many)


def _loaded(found: list[Row | None]) -> list[Loaded | None]:
    # Each thread makes its own row a model: content that no longer decrypts fails only its send.
    return [None if row is None else functools.partial(row_model, Notification, *row) for row in found]


def awaiting_dispatch(notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
    return _loaded(_read_awaiting.submit_all(notification_ids))


def claim_awaiting(notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
    return _loaded(_claim_awaiting.submit_all(notification_ids))


def claim(notification_id: Any, at: datetime.datetime) -> bool:
    sql = compiled_sql("claim", lambda p: (
        f'UPDATE "{Notification._meta.table_name}" SET {column(Notification.dispatch_started_at)} = {p}'
        f" WHERE {column(Notification.id)} = {p} AND {UNINDEXED_STATUS_SQL} = '{CREATED}'"
        f" AND {column(Notification.dispatch_started_at)} IS NULL"))
    params = [Notification.dispatch_started_at.db_value(at), Notification.id.db_value(notification_id)]
    return bool(database.execute_sql(sql, params).rowcount == 1)


def any_held_receipt(provider: str, provider_id: str) -> bool:
    # Asked on every send, and almost always there is none.
    sql = compiled_sql("any-held-receipt", lambda p: (
        f'SELECT 1 FROM "{HeldReceipt._meta.table_name}" WHERE {column(HeldReceipt.provider)} = {p}'
        f' AND {column(HeldReceipt.provider_id)} = {p} LIMIT 1'))
    return database.execute_sql(sql, [provider, provider_id]).fetchone() is not None
