"""The database handle shared by every model, switched between SQLite and PostgreSQL by URL."""
from __future__ import annotations

import datetime
import json
import select
import uuid
from pathlib import Path
from typing import Any

import peewee
import psycopg2
import psycopg2.extensions
from peewee import Psycopg2Adapter
from playhouse import db_url
from playhouse.pool import MaxConnectionsExceeded, PooledDatabase, PooledPostgresqlDatabase

database = peewee.DatabaseProxy()


def utcnow() -> datetime.datetime:
    """Naive UTC: the database stores UTC without a zone; the API adds the Z on the way out."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


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


def is_uuid(value: str) -> bool:
    """Whether ``value`` spells a UUID: an id from a URL is checked before it reaches a query."""
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def uuid_pk() -> peewee.UUIDField:
    return peewee.UUIDField(primary_key=True, default=uuid.uuid4)


POOL_SIZE = 20  # connections a gevent web worker may have open at once; more requests wait
WORKER_APPLICATION_NAME = "notify-worker"
WORKER_WAIT_SECONDS = 30  # then a worker thread's work fails as when the server is unreachable, and is retried
STALE_SECONDS = 300  # a pooled connection older than this is closed rather than used again


def connect_url(url: str, shared_connections: int | None = None) -> peewee.Database:
    """The database at url; with shared_connections, a PostgreSQL database's threads share at most
    that many connections (SharedConnections, peewee's pool) instead of keeping one each."""
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///"):])
        path.parent.mkdir(parents=True, exist_ok=True)
        # WAL lets web and worker processes read while one writes; busy_timeout waits for the
        # writer lock instead of failing at once under concurrent sends. It can wait only where the
        # lock is asked for before anything is read: a single statement, or a transaction begun
        # IMMEDIATE. A deferred transaction that read first and then meets a writer that committed
        # since fails at once ("database is locked"), so every transaction, atomic() or
        # transaction() without a lock type, begins IMMEDIATE (docs/decisions/data-and-migrations.md).
        return peewee.SqliteDatabase(
            str(path),
            pragmas={"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 10000, "synchronous": "normal"},
            check_same_thread=False,
            lock_type="IMMEDIATE",
        )
    if not url.startswith(("postgresql://", "postgres://")):
        return db_url.connect(url)
    address = url.split("://", 1)[1]
    # peewee's pool checks each connection it hands out (CheckedWithoutRoundTrip): one the server
    # dropped (it restarted, or ended the session) is closed and another taken, never handed out.
    if _cooperate_with_gevent():
        # peewee keeps a connection per greenlet there, that is per request: requests borrow one
        # from the pool and give it back (leave_request). Threads keep theirs for life instead.
        return RequestConnections(max_connections=POOL_SIZE, timeout=10, stale_timeout=STALE_SECONDS,
                                  **db_url.parse("postgresql://" + address))
    if shared_connections:
        # A worker thread holds one from its first query until it gives it back (at the end of
        # each message, and while it waits on a provider: give_back_connection()), so a worker's
        # threads, not its connections, bound the sends it has in flight; one finding none free
        # waits. Named, so pg_stat_activity shows what holds a server's connections.
        return SharedConnections(
            max_connections=shared_connections, timeout=WORKER_WAIT_SECONDS, stale_timeout=STALE_SECONDS,
            application_name=WORKER_APPLICATION_NAME, **db_url.parse("postgresql://" + address))
    return db_url.connect("postgresql://" + address)


def dropped(conn: Any) -> bool:
    """Whether the server has dropped this idle connection, found without a round trip.

    psycopg2 flags a connection closed only once a query failed on it. A server that restarted
    or ended the session has closed its side, so the idle socket reads as ready (end of file, or
    its last error message): one poll that does not wait shows it. Connections without a socket
    (SQLite) are never dropped.
    """
    if getattr(conn, "closed", 0):
        return True
    fileno = getattr(conn, "fileno", None)
    if fileno is None:
        return False
    try:
        readable, _, _ = select.select([fileno()], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class CheckedWithoutRoundTrip(Psycopg2Adapter):
    """peewee's psycopg2 adapter, whose check of an idle pooled connection before it is handed out
    polls its socket (dropped()) instead of sending a SELECT 1: that round trip was paid by every
    web request and every worker message that took a connection from a pool."""

    def is_connection_closed(self, conn: Any) -> bool:
        if conn.get_transaction_status() != psycopg2.extensions.TRANSACTION_STATUS_IDLE:
            return super().is_connection_closed(conn)  # rolled back, or found lost, as peewee does
        return dropped(conn)


class RequestConnections(PooledPostgresqlDatabase):
    """peewee's pool, lent to a gevent web worker's requests (connect_url)."""

    psycopg2_adapter = CheckedWithoutRoundTrip


class SharedConnections(PooledPostgresqlDatabase):
    """peewee's pool, shared by a worker process's threads (connect_url)."""

    psycopg2_adapter = CheckedWithoutRoundTrip

    def connect(self, reuse_if_open: bool = False) -> bool:
        try:
            return super().connect(reuse_if_open)
        except MaxConnectionsExceeded:
            # Raised as a database outage is, which the actors' retry_when retries; peewee's own
            # error is a ValueError, which they fail at once as a bug.
            raise peewee.OperationalError("no database connection came free") from None


def give_back_connection() -> None:
    """This thread's shared connection goes back for other threads (before it waits on a
    provider, and when a worker's message is done); its next query takes one again. A connection a
    thread keeps for life, and one inside a transaction, stays where it is."""
    if isinstance(database.obj, SharedConnections) and not database.in_transaction():
        database.close()


def _cooperate_with_gevent() -> bool:
    """Under gevent (the PostgreSQL web workers, see gunicorn.conf.py) psycopg2 must wait for the
    server through gevent's hub: a query waiting in C would stall every request of the process.
    True when running under gevent."""
    try:
        from gevent import monkey
        from gevent.socket import wait_read, wait_write
    except ImportError:
        return False
    if not monkey.is_module_patched("socket"):
        return False

    def wait(connection: Any, timeout: float | None = None) -> None:
        while True:
            state = connection.poll()
            if state == psycopg2.extensions.POLL_OK:
                return
            if state == psycopg2.extensions.POLL_READ:
                wait_read(connection.fileno(), timeout=timeout)
            elif state == psycopg2.extensions.POLL_WRITE:
                wait_write(connection.fileno(), timeout=timeout)
            else:
                raise psycopg2.OperationalError(f"unexpected connection state {state}")

    psycopg2.extensions.set_wait_callback(wait)
    return True


_watching_settings = False


def init_database(url: str, shared_connections: int | None = None) -> peewee.Database:
    """Give the models a database; the first call also hangs the settings-write hook off their handle,
    so every database it is given later (a worker's shared connections, a test's) is watched too."""
    global _watching_settings
    if not _watching_settings:
        from models.cache import watch_settings_writes  # models.cache builds on this module

        database.attach_callback(watch_settings_writes)
        _watching_settings = True
    db = connect_url(url, shared_connections)
    database.initialize(db)
    return db


def is_postgres() -> bool:
    return not isinstance(database.obj, peewee.SqliteDatabase)


def open_connection() -> None:
    """Connect this thread (or greenlet), replacing a connection the server dropped before use."""
    if not database.is_closed() and dropped(database.connection()):
        database.close()
    database.connect(reuse_if_open=True)


def enter_request() -> bool:
    """At the start of a web request: whether a connection was open already."""
    if isinstance(database.obj, PooledDatabase):
        return not database.is_closed()  # borrowed from the pool when first needed
    open_connection()
    return True


def leave_request(was_open: bool) -> None:
    """At the end of a web request: a connection borrowed from the pool goes back to it."""
    if not was_open and not database.is_closed() and not database.in_transaction():
        database.close()
