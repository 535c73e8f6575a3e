"""What a database's schema is, as plain data two databases can be compared by: tables, their columns
(type, nullability, default), indexes (columns, uniqueness, condition) and foreign keys (with what a
delete does). Column order is left out: a column added by a migration comes last, one made with its
table stands where the table's definition put it, and no query depends on it."""
from __future__ import annotations

import re
from typing import Any

import peewee

Shape = dict[str, dict[str, Any]]


def schema_shape(db: peewee.Database, *, leave_out: tuple[str, ...] = ("schema_version",)) -> Shape:
    return {table: _table(db, table) for table in sorted(db.get_tables()) if table not in leave_out}


def _table(db: peewee.Database, table: str) -> dict[str, Any]:
    return {
        "columns": {c.name: {"type": c.data_type.lower(), "null": bool(c.null), "primary_key": bool(c.primary_key),
                             "default": c.default}
                    for c in db.get_columns(table)},
        "indexes": {i.name: {"columns": list(i.columns), "unique": bool(i.unique), "where": _condition(i.sql)}
                    for i in db.get_indexes(table) if not _made_for_a_constraint(db, i.name)},
        "foreign_keys": _foreign_keys(db, table),
    }


def _condition(sql: str | None) -> str | None:
    if not sql or " where " not in sql.lower():
        return None
    where = re.split(r"\bwhere\b", sql, maxsplit=1, flags=re.IGNORECASE)[1]
    return " ".join(where.replace('"', "").replace("(", " ").replace(")", " ").lower().split())


def _made_for_a_constraint(db: peewee.Database, name: str) -> bool:
    # A primary key's index (PostgreSQL's *_pkey, SQLite's sqlite_autoindex_*) follows the table's key.
    return name.endswith("_pkey") or name.startswith("sqlite_autoindex_")


def _foreign_keys(db: peewee.Database, table: str) -> dict[str, dict[str, str]]:
    if isinstance(db, peewee.SqliteDatabase):
        rows = db.execute_sql(f'PRAGMA foreign_key_list("{table}")').fetchall()
        return {row[3]: {"table": row[2], "column": row[4], "on_delete": row[6].upper()} for row in rows}
    rows = db.execute_sql(
        "SELECT kcu.column_name, ccu.table_name, ccu.column_name, rc.delete_rule"
        " FROM information_schema.table_constraints tc"
        " JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name"
        "  AND kcu.table_schema = tc.table_schema"
        " JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name"
        "  AND ccu.table_schema = tc.table_schema"
        " JOIN information_schema.referential_constraints rc ON rc.constraint_name = tc.constraint_name"
        "  AND rc.constraint_schema = tc.table_schema"
        " WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_name = %s AND tc.table_schema = current_schema()",
        (table,)).fetchall()
    return {row[0]: {"table": row[1], "column": row[2], "on_delete": row[3].upper()} for row in rows}


def differences(expected: Shape, actual: Shape) -> list[str]:
    """One line per difference, naming the table and the column or index: what a failing test prints."""
    lines = [f"table {t}: missing" for t in expected if t not in actual]
    lines += [f"table {t}: not expected" for t in actual if t not in expected]
    for table in sorted(set(expected) & set(actual)):
        for part in ("columns", "indexes", "foreign_keys"):
            want, have = expected[table][part], actual[table][part]
            for name in sorted(set(want) | set(have), key=str):
                if want.get(name) != have.get(name):
                    lines.append(f"table {table} {part[:-1].replace('_', ' ')} {name}: "
                                 f"expected {want.get(name)}, found {have.get(name)}")
    return lines
