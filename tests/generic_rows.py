"""Rows in every table of a database, whatever its schema: each column given a value of its type, each
foreign key pointing at a row of its table. An upgrade test fills a database of an old schema this
way, so no table is left empty for a step to lose rows from unseen."""
from __future__ import annotations

import datetime
import uuid

import peewee

NOW = datetime.datetime(2026, 11, 1, 12, 0, 0)


def fill_every_table(db: peewee.Database, *, rows: int = 3, leave_out: tuple[str, ...] = ("schema_version",)) -> None:
    keys: dict[str, list[object]] = {}
    for table in _parents_first(db, [t for t in db.get_tables() if t not in leave_out]):
        foreign = {fk.column: fk for fk in db.get_foreign_keys(table)}
        columns = db.get_columns(table)
        made = []
        for n in range(rows):
            values = {}
            for column in columns:
                if column.primary_key and _assigned_by_the_database(column):
                    continue
                fk = foreign.get(column.name)
                if fk is not None:
                    parents = keys.get(fk.dest_table, [])
                    values[column.name] = parents[n % len(parents)] if parents and fk.dest_table != table else None
                else:
                    values[column.name] = _value(column, n)
            row_id = peewee.Table(table).bind(db).insert(**values).execute()
            primary = next((c.name for c in columns if c.primary_key), None)
            made.append(values.get(primary, row_id) if primary else row_id)
        keys[table] = made


def _assigned_by_the_database(column: peewee.ColumnMetadata) -> bool:
    kind = column.data_type.lower()
    return kind in ("integer", "bigint") or "serial" in kind or "nextval" in str(column.default or "")


def _value(column: peewee.ColumnMetadata, n: int) -> object:
    kind = column.data_type.lower()
    if kind == "uuid" or (column.primary_key and kind == "text"):
        return uuid.uuid4().hex
    if "int" in kind:
        return n + 1
    if kind == "boolean":
        return n % 2 == 0
    if kind in ("date",):
        return datetime.date(2026, 10, 1) + datetime.timedelta(days=n)
    if "timestamp" in kind or kind == "datetime":
        return NOW + datetime.timedelta(minutes=n)
    if "decimal" in kind or "numeric" in kind or kind in ("real", "double precision", "float"):
        return "1.5"
    return f"{column.name} {n}"


def _parents_first(db: peewee.Database, tables: list[str]) -> list[str]:
    ordered: list[str] = []
    pending = {t: {fk.dest_table for fk in db.get_foreign_keys(t)} - {t} for t in tables}
    while pending:
        ready = sorted(t for t, parents in pending.items() if not parents - set(ordered))
        if not ready:
            raise ValueError(f"foreign keys in a circle among {sorted(pending)}")
        ordered += ready
        for table in ready:
            del pending[table]
    return ordered


def rows_per_table(db: peewee.Database) -> dict[str, int]:
    return {table: db.execute_sql(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0] for table in db.get_tables()}
