"""Versioned schema migrations, frozen: each step states its own DDL, as it was when the step was
written, in `sql/<version>.<dialect>.sql`, and never reads a model class, so a fresh install and an
upgraded database are made by the same statements whatever the models say today.

`python -m models.migrations` (the Procfile's release process) is idempotent: an existing database
is upgraded in place, a current one is left alone. The first step is the whole schema of release
0.8.0, the oldest release that upgrades in place; CONTRIBUTING.md says how to add a step.
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import peewee

from models.db import BaseModel, database, is_postgres, utcnow
from models.migrations.steps import BASELINE, MIGRATIONS, OLDEST_RELEASE, Step

SQL_DIR = Path(__file__).resolve().parent / "sql"


class SchemaVersion(BaseModel):
    version = peewee.IntegerField(primary_key=True)
    name = peewee.CharField()
    applied_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "schema_version"


class UnsupportedDatabase(RuntimeError):
    """A database made by a release older than the oldest one this release upgrades."""


class ForeignKeyViolation(RuntimeError):
    """A step left rows that point at nothing; its transaction is rolled back."""


class MissingStepFile(RuntimeError):
    """A step's SQL file for this database's dialect is not there (misnamed, or never written)."""


def migrate(until: int | None = None) -> list[int]:
    """Apply pending migrations (up to and including step `until`, if given); returns the versions applied."""
    applied: list[int] = []
    with database.connection_context():
        _make_schema_version_table()
        done = {row.version for row in SchemaVersion.select()}
        if done and BASELINE not in done:
            raise UnsupportedDatabase(
                f"this database's last migration step is {max(done)}, from a release older than {OLDEST_RELEASE}:"
                f" upgrade it with release {OLDEST_RELEASE}'s release step first (git checkout v{OLDEST_RELEASE},"
                " install its requirements.txt, run python -m models.migrations), then with this one")
        due = [step for step in MIGRATIONS
               if step.version not in done and (until is None or step.version <= until)]
        # Every due step's file is read before the first step runs: a missing one changes nothing.
        scripts = {step.version: statements(step.version) for step in due}
        for step in due:
            _apply(step, scripts[step.version])
            applied.append(step.version)
    return applied


def _make_schema_version_table() -> None:
    """The runner's own record, stated as its DDL like every step's (what the model made in 0.8.0)."""
    timestamp = "TIMESTAMP" if is_postgres() else "DATETIME"
    database.execute_sql('CREATE TABLE IF NOT EXISTS "schema_version" ("version" INTEGER NOT NULL PRIMARY KEY,'
                         f' "name" VARCHAR(255) NOT NULL, "applied_at" {timestamp} NOT NULL)')


def _apply(step: Step, script: list[str]) -> None:
    if not step.transaction and is_postgres():
        _apply_concurrently(step, script)
        return
    with _foreign_keys_off_on_sqlite():
        with database.atomic():
            for statement in script:
                database.execute_sql(statement)
            if step.data is not None:
                step.data(database.obj)
            _check_foreign_keys(step.version)
            SchemaVersion.create(version=step.version, name=step.name)


CONCURRENT_INDEX = re.compile(r'^CREATE (?:UNIQUE )?INDEX CONCURRENTLY IF NOT EXISTS "([^"]+)"')


def _apply_concurrently(step: Step, script: list[str]) -> None:
    """A step that builds indexes on big tables without blocking their writers (PostgreSQL's CREATE INDEX
    CONCURRENTLY, which cannot run in a transaction): its statements run one at a time, each committed,
    and the step is recorded after the last. Each is written to be run again (IF NOT EXISTS); an index
    that an interrupted build left invalid is dropped first, as PostgreSQL's documentation advises
    (https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY)."""
    for statement in script:
        built = CONCURRENT_INDEX.match(statement)
        if built is None:
            raise ValueError(f"step {step.version} runs outside a transaction: only concurrent index builds may")
        invalid = database.execute_sql(
            "SELECT 1 FROM pg_index JOIN pg_class ON pg_class.oid = pg_index.indexrelid"
            " WHERE pg_class.relname = %s AND NOT pg_index.indisvalid", (built.group(1),)).fetchone()
        if invalid:
            database.execute_sql(f'DROP INDEX CONCURRENTLY IF EXISTS "{built.group(1)}"')
        database.execute_sql(statement)
    SchemaVersion.create(version=step.version, name=step.name)


def statements(version: int) -> list[str]:
    """The step's DDL for this database's dialect, one statement at a time; `--` lines are comments.
    Every step has its file, a step without DDL one of comments alone: a missing file is refused, or a
    misnamed one would have its step recorded as applied with nothing run."""
    path = SQL_DIR / f"{version:04d}.{'postgresql' if is_postgres() else 'sqlite'}.sql"
    if not path.is_file():
        raise MissingStepFile(f"migration step {version}'s SQL file is missing: {path}")
    text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
    return [part.strip() for part in text.split(";\n") if part.strip().rstrip(";")]


@contextlib.contextmanager
def _foreign_keys_off_on_sqlite() -> Iterator[None]:
    """SQLite's documented procedure for changing a table's schema
    (https://www.sqlite.org/lang_altertable.html#otheralter): foreign keys off outside the transaction,
    checked before it commits, on again after. With them on, a step that rebuilds a table (copy, drop,
    rename) cascades the drop through every table referring to it: upgrades across step 150 with
    release 0.9.0 deleted every key, template and message of a SQLite install."""
    if is_postgres():
        yield
        return
    database.execute_sql("PRAGMA foreign_keys = OFF")
    try:
        yield
    finally:
        database.execute_sql("PRAGMA foreign_keys = ON")


def _check_foreign_keys(version: int) -> None:
    if is_postgres():
        return  # PostgreSQL checks every constraint as the step runs
    broken = database.execute_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        tables = sorted({row[0] for row in broken})
        raise ForeignKeyViolation(f"step {version} left {len(broken)} rows pointing at nothing in {', '.join(tables)}")


def pending() -> list[int]:
    """The steps a database still needs: all of them for a fresh install, none for one up to date."""
    with database.connection_context():
        if SchemaVersion._meta.table_name not in database.get_tables():
            return [step.version for step in MIGRATIONS]
        done = {row.version for row in SchemaVersion.select()}
    return [step.version for step in MIGRATIONS if step.version not in done]


def release(url: str) -> list[int]:
    """The release step: a SQLite database that holds data is copied before it is migrated, so a step
    that goes wrong costs nothing that cannot be brought back."""
    from models.backup import backup_sqlite

    steps = pending()
    if steps and len(steps) < len(MIGRATIONS) and not is_postgres():
        copy = backup_sqlite(url, before_step=steps[0])
        if copy is not None:
            print(f"copied the database before migrating it: {copy}")
    return migrate()
