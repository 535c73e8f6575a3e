"""Status changes by SQL built once per shape (the statement's columns and row count): peewee's
query building cost more than these short statements themselves on the send path, where every
receipt and every send moves a status."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import peewee

from models.db import database, is_postgres
from models.notification import UNINDEXED_STATUS_SQL, Notification
from pipeline.infrastructure.throughput import reference
from pipeline.infrastructure.throughput.fast.sql import column, compiled_sql

PLAIN_BATCH = 100  # change_statuses keeps compiled SQL for batches up to this size (one per size)


def change_status(notification_id: Any, allowed: frozenset[str], values: dict[str, Any]) -> str | None:
    sql = compiled_sql(("transition", tuple(sorted(allowed)), tuple(values)), lambda p: (
        f'{_update_allowed(allowed, values, p)} AND {column(Notification.id)} = {p}'
        f' RETURNING {column(Notification.notification_type)}'))
    changed = database.execute_sql(sql, [*_params(values), Notification.id.db_value(notification_id)]).fetchall()
    return changed[0][0] if changed else None


def change_statuses(notification_ids: list[Any], allowed: frozenset[str],
                    values: dict[str, Any]) -> list[tuple[Any, str]]:
    if len(notification_ids) > PLAIN_BATCH or any(isinstance(v, peewee.Node) for v in values.values()):
        return reference.change_statuses(notification_ids, allowed, values)
    sql = compiled_sql(("transition-many", tuple(sorted(allowed)), tuple(values), len(notification_ids)), lambda p: (
        f'{_update_allowed(allowed, values, p)}'
        f' AND {column(Notification.id)} IN ({", ".join([p] * len(notification_ids))})'
        f' RETURNING {column(Notification.id)}, {column(Notification.notification_type)}'))
    return _moved(database.execute_sql(sql, [*_params(values), *map(Notification.id.db_value, notification_ids)]))


def change_each_status(allowed: frozenset[str], shared: dict[str, Any],
                       changes: Sequence[tuple[Any, Mapping[str, Any]]]) -> list[tuple[Any, str]]:
    names = tuple(changes[0][1])
    columns = Notification._meta.fields
    sql = compiled_sql(("transition-each", tuple(sorted(allowed)), tuple(shared), names, len(changes)),
                       lambda p: _update_each(allowed, tuple(shared), names, len(changes), p))
    ids = [Notification.id.db_value(notification_id) for notification_id, _ in changes]
    params = []  # in the statement's order: the VALUES rows, what every row is set to, the ids
    for row_id, (_, fields) in zip(ids, changes, strict=True):
        params.append(row_id)
        params.extend(columns[name].db_value(fields[name]) for name in names)
    params += _params(shared)
    params += ids
    return _moved(database.execute_sql(sql, params))


def _moved(cursor: Any) -> list[tuple[Any, str]]:
    """The (id, type) rows a RETURNING gave, each id made a UUID as the ORM reads it."""
    return [(Notification.id.python_value(row_id), notification_type) for row_id, notification_type in cursor]


def _update_each(allowed: frozenset[str], shared: tuple[str, ...], names: tuple[str, ...], rows: int, p: str) -> str:
    """change_each_status's statement: the rows' own values come from a VALUES list joined on the id.
    PostgreSQL types a VALUES column by its first value, and a parameter is untyped text there:
    each is cast to its column's type. SQLite, whose columns take any value, needs no casts."""
    columns = Notification._meta.fields
    types = database.obj.get_context_options()["field_types"] if is_postgres() else None

    def typed(name: str) -> str:
        field_type = columns[name].field_type
        return p if types is None else f"CAST({p} AS {types.get(field_type, field_type)})"

    table = f'"{Notification._meta.table_name}"'
    row = f'({", ".join(typed(name) for name in ("id", *names))})'
    assignments = [f"{column(columns[name])} = {p}" for name in shared]
    assignments += [f'{column(columns[name])} = "changes".{column(columns[name])}' for name in names]
    return (f'WITH "changes" ("id", {", ".join(column(columns[name]) for name in names)})'
            f' AS (VALUES {", ".join([row] * rows)})'
            f' UPDATE {table} SET {", ".join(assignments)} FROM "changes"'
            f' WHERE {table}.{column(Notification.id)} = "changes"."id"'
            # The ids again, as a list the planner counts: joined on "changes" alone, a burst of rows
            # newer than the table's statistics had it scan the whole table in every statement.
            f' AND {table}.{column(Notification.id)} IN ({", ".join([p] * rows)}) AND {_status_allows(allowed)}'
            f' RETURNING {table}.{column(Notification.id)}, {table}.{column(Notification.notification_type)}')


def _update_allowed(allowed: frozenset[str], values: dict[str, Any], p: str) -> str:
    """UPDATE ... SET values WHERE the status is one of allowed: the start of the compiled
    transitions, to which the caller adds which rows and what to return."""
    columns = Notification._meta.fields
    assignments = ", ".join(f"{column(columns[name])} = {p}" for name in values)
    return f'UPDATE "{Notification._meta.table_name}" SET {assignments} WHERE {_status_allows(allowed)}'


def _status_allows(allowed: frozenset[str]) -> str:
    """The compiled statements' condition that the row's status is one of allowed."""
    return f'{UNINDEXED_STATUS_SQL} IN ({", ".join(repr(status) for status in sorted(allowed))})'


def _params(values: dict[str, Any]) -> list[Any]:
    columns = Notification._meta.fields
    return [columns[name].db_value(value) for name, value in values.items()]
