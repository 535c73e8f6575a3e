"""A database of a test's own, of the kind DATABASE_URL names: a SQLite file in a temporary folder, or
a PostgreSQL database on the same server named `<db>_<suffix>`; dropped afterwards."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import peewee
import psycopg2

from models.db import connect_url, database


def _admin(url: str, sql: str) -> None:
    connection = psycopg2.connect(url)
    connection.autocommit = True
    try:
        connection.cursor().execute(sql)
    finally:
        connection.close()


@contextmanager
def private_database_url(suffix: str) -> Iterator[str]:
    url = os.environ["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        with tempfile.TemporaryDirectory(prefix=f"notify-{suffix}-") as folder:
            yield f"sqlite:///{Path(folder) / f'{suffix}.db'}"
        return
    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/')}_{suffix}"
    _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin(url, f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def private_database(suffix: str) -> Iterator[peewee.Database]:
    with private_database_url(suffix) as url:
        db = connect_url(url)
        try:
            yield db
        finally:
            db.close()


@contextmanager
def using(db: peewee.Database) -> Iterator[None]:
    """The models read and write db for a while (the shared handle is swapped back afterwards)."""
    before = database.obj
    database.initialize(db)
    try:
        yield
    finally:
        database.initialize(before)
