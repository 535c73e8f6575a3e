"""SQL text built once per statement shape, and rows read or written around peewee's per-call query
building: on the hot paths that building cost more than the short statements themselves
(docs/decisions/speed.md). Only the fast implementation of the throughput seam uses these."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import peewee

from models.db import BaseModel, database

M = TypeVar("M", bound=BaseModel)


_compiled: dict[tuple[Hashable, str], str] = {}


def compiled_sql(key: Hashable, build: Callable[[str], str]) -> str:
    """SQL text built once per key and parameter style (build gets the placeholder): peewee's
    per-call query building costs more than a short statement itself on the hot paths."""
    param = database.obj.param
    sql = _compiled.get((key, param))
    if sql is None:
        sql = _compiled[(key, param)] = build(param)
    return sql


def column(field: peewee.Field) -> str:
    return f'"{field.column_name}"'


def column_names(cursor: Any) -> tuple[str, ...]:
    return tuple(description[0] for description in cursor.description)


def row_model(model: type[M], names: tuple[str, ...], row: tuple) -> M:
    """A row of model's columns (named as the cursor named them) as a model instance."""
    columns = model._meta.columns
    data = {}
    for name, value in zip(names, row, strict=True):
        field = columns.get(name)
        if field is None:
            # A column a later release added (`SELECT *` returns it): this release keeps working
            # beside that release's schema during a rolling upgrade
            # (docs/architecture.md#migrations-are-frozen-expand-then-contract).
            continue
        data[field.name] = None if value is None else field.python_value(value)
    # peewee's documented constructor: it also fills Python-side defaults, each then replaced by the row's value.
    return model(**data)


def _stored_as(field: peewee.Field) -> str:
    """The attribute a row keeps a field's own value under: a foreign key's id, not the row it names."""
    return field.object_id_name if isinstance(field, peewee.ForeignKeyField) else field.name


def insert_rows(model: type[M], rows: Sequence[M]) -> None:
    """INSERT model instances (made with model(...), which fills Python-side defaults as create()
    does) in one statement, its SQL built once per model and row count."""
    fields = [(field, _stored_as(field)) for field in model._meta.sorted_fields]
    sql = compiled_sql(("insert", model, len(rows)), lambda p: (
        f'INSERT INTO "{model._meta.table_name}" ({", ".join(column(f) for f, _ in fields)}) VALUES '
        + ", ".join([f'({", ".join([p] * len(fields))})'] * len(rows))))
    # None is None in every column type: most of a new row's columns are empty until later stages.
    database.execute_sql(sql, [None if (value := getattr(row, name)) is None else f.db_value(value)
                               for row in rows for f, name in fields])
