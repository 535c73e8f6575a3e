"""The database handle shared by every model, switched between SQLite and PostgreSQL by URL."""
from __future__ import annotations

import contextlib
import datetime
import json
import uuid
from pathlib import Path
from typing import Any, Iterator

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


_insert_sql: dict[tuple[type, str], tuple[str, list[peewee.Field]]] = {}


def fast_insert(model: type[BaseModel], **values: Any) -> BaseModel:
    """INSERT one row with SQL built once per model: peewee's per-call query building costs more
    than the insert itself on the send hot path. Python-side defaults apply as in Model.create."""
    param = database.obj.param
    cached = _insert_sql.get((model, param))
    if cached is None:
        fields = list(model._meta.sorted_fields)
        columns = ", ".join(f'"{f.column_name}"' for f in fields)
        sql = f'INSERT INTO "{model._meta.table_name}" ({columns}) VALUES ({", ".join([param] * len(fields))})'
        cached = _insert_sql[(model, param)] = (sql, fields)
    sql, fields = cached
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
