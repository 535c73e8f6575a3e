"""The floors' own rows and connection (bench/floor_app.py, bench/floor_actors.py): the driver alone,
without peewee, for the least a statement costs."""
from __future__ import annotations

import datetime
import functools
import json
import os
import sqlite3
import uuid
from typing import Any

import psycopg2
import psycopg2.extras
from gevent import monkey

from models.crypto import encrypt

DATABASE_URL = os.environ.get("DATABASE_URL", "")
POSTGRES = DATABASE_URL.startswith(("postgresql://", "postgres://"))
MARK = "%s" if POSTGRES else "?"  # the driver's parameter placeholder
# What the service's accept path fills in for a text message (the other columns keep their defaults).
COLUMNS = ("id", "service_id", "api_key_id", "key_type", "notification_type", "template_id", "template_version",
           "to", "normalised_to", "reference", "status", "body", "reply_to_text", "created_at", "international",
           "phone_prefix", "rate_multiplier", "fragment_count", "precompiled", "personalisation")

if POSTGRES and monkey.is_module_patched("select"):
    # Under gunicorn's gevent workers select() is gevent's, so a query waits in the hub, as the
    # service's psycopg2 queries do there (models.db); threads simply block.
    psycopg2.extensions.set_wait_callback(psycopg2.extras.wait_select)


def connect() -> Any:
    """An autocommitting connection to DATABASE_URL, or to the SQLite file the service defaults to."""
    if POSTGRES:
        connection = psycopg2.connect(DATABASE_URL)
        connection.autocommit = True
        return connection
    path = DATABASE_URL[len("sqlite:///"):] or f"{os.environ['INSTANCE_DIR']}/notify.db"
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)


@functools.cache
def leader_connection() -> Any:
    """The process's one connection for a floor's Batcher: only a round's leader uses it, one round
    at a time."""
    return connect()


def stored_id(value: str) -> str:
    """An id as peewee's UUIDField writes it: 32 hex digits, which SQLite keeps as text and PostgreSQL
    reads as a uuid."""
    return uuid.UUID(value).hex


def now() -> Any:
    """The current UTC time as peewee's DateTimeField stores it."""
    value = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    return value if POSTGRES else value.isoformat(" ")


def sms_row(notification_id: str, service_id: str, template_id: str, to: str, normalised: str, prefix: str,
            reference: str | None, body: str, personalisation: dict) -> tuple:
    """A created live text message's values, in COLUMNS' order, its content encrypted as the service
    keeps it at rest (models.crypto)."""
    return (stored_id(notification_id), stored_id(service_id), None, "live", "sms", stored_id(template_id), 1,
            to, normalised, reference, "created", encrypt(body), "Notify", now(), False, prefix, 1, 1, False,
            encrypt(json.dumps(personalisation, separators=(",", ":"))))


_inserts: dict[int, str] = {}


def insert_sql(rows: int) -> str:
    """INSERT of that many rows of COLUMNS, built once per count."""
    sql = _inserts.get(rows)
    if sql is None:
        values = "(" + ", ".join([MARK] * len(COLUMNS)) + ")"
        sql = _inserts[rows] = (f"INSERT INTO notification ({', '.join(f'{chr(34)}{c}{chr(34)}' for c in COLUMNS)}) "
                                f"VALUES {', '.join([values] * rows)}")
    return sql
