"""A query's rows as plain dicts or tuples, typed as such: peewee's stubs give .dicts() and .tuples()
the query's own type, whose rows would be model instances."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import peewee


def dict_rows(query: peewee.BaseQuery) -> Iterable[dict[str, Any]]:
    """Rows keyed by column name or alias."""
    return cast("Iterable[dict[str, Any]]", query.dicts())


def tuple_rows(query: peewee.BaseQuery) -> Iterable[tuple[Any, ...]]:
    """Rows in the order of the selection."""
    return cast("Iterable[tuple[Any, ...]]", query.tuples())
