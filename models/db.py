"""The database handle shared by every model, switched between SQLite and PostgreSQL by URL."""
from __future__ import annotations

import contextlib
import datetime
import json
import uuid
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator

import peewee
from playhouse import db_url

database = peewee.DatabaseProxy()


def utcnow() -> datetime.datetime:
    """Naive UTC: the database stores UTC without a zone; the API adds the Z on the way out."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class JSONField(peewee.TextField):
    """JSON kept as text, so one schema serves SQLite and PostgreSQL alike."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


class EncryptedTextField(peewee.TextField):
    """Text encrypted with the configured SECRET_KEY: a database dump alone does not reveal it
    (a rendered email body holds download links whose key opens the attached file)."""

    def db_value(self, value: str | None) -> str | None:
        from models import crypto

        return None if value is None else crypto.encrypt(value)

    def python_value(self, value: str | None) -> str | None:
        from models import crypto

        return None if value is None else crypto.decrypt(value)


class EncryptedJSONField(EncryptedTextField):
    def db_value(self, value: Any) -> str | None:
        return None if value is None else super().db_value(json.dumps(value, separators=(",", ":")))

    def python_value(self, value: str | None) -> Any:
        text = super().python_value(value)
        return None if text is None else json.loads(text)


class BaseModel(peewee.Model):
    class Meta:
        database = database


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


def fetch_one(model: type[BaseModel], sql: str, params: list[Any]) -> BaseModel | None:
    """The first row of a SELECT of model's columns, as a model: peewee's cursor wrappers work out
    the column mapping anew for every query, which costs more than a primary-key read itself."""
    cursor = database.execute_sql(sql, params)
    row = cursor.fetchone()
    if row is None:
        return None
    columns = model._meta.columns
    data = {}
    for description, value in zip(cursor.description, row):
        field = columns[description[0]]
        data[field.name] = None if value is None else field.python_value(value)
    return model(__no_default__=1, **data)


def fast_insert(model: type[BaseModel], **values: Any) -> BaseModel:
    """INSERT one row with SQL built once per model. Python-side defaults apply as in Model.create."""
    fields = model._meta.sorted_fields
    sql = compiled_sql(("insert", model), lambda p: (
        f'INSERT INTO "{model._meta.table_name}" ({", ".join(column(f) for f in fields)})'
        f' VALUES ({", ".join([p] * len(fields))})'))
    row = model(**values)  # fills the defaults, as create() does
    database.execute_sql(sql, [f.db_value(row.__data__.get(f.name)) for f in fields])
    return row


@contextlib.contextmanager
def single_statement() -> Iterator[None]:
    """For a write of one autocommitted statement: callbacks registered with
    database.after_commit run as soon as it is done, like after a transaction's commit."""
    yield


def uuid_pk() -> peewee.UUIDField:
    return peewee.UUIDField(primary_key=True, default=uuid.uuid4)


def connect_url(url: str) -> peewee.Database:
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///"):])
        path.parent.mkdir(parents=True, exist_ok=True)
        # WAL lets web and worker processes read while one writes; busy_timeout waits for the
        # writer lock instead of failing at once under concurrent sends.
        return peewee.SqliteDatabase(
            str(path),
            pragmas={"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 10000, "synchronous": "normal"},
            check_same_thread=False,
        )
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql://" + url.split("://", 1)[1]
    return db_url.connect(url)


def init_database(url: str) -> peewee.Database:
    db = connect_url(url)
    database.initialize(db)
    return db


def is_postgres() -> bool:
    return not isinstance(database.obj, peewee.SqliteDatabase)


def open_connection() -> None:
    """Each web or worker thread keeps one connection for its life: checking a pooled connection
    out and back per request cost a fifth of the accept path. A connection the server dropped
    (psycopg2 marks it closed) is replaced before use."""
    if not database.is_closed() and getattr(database.connection(), "closed", 0):
        database.close()
    database.connect(reuse_if_open=True)
