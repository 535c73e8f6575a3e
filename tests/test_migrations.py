"""Schema migrations: a database of the oldest supported release's schema, full of rows, upgraded across
every step keeps every row and ends with the schema of a fresh install (SQLite or PostgreSQL)."""
from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import peewee
import pytest
from playhouse.migrate import SchemaMigrator, migrate as apply

from config import get_settings
from models import migrations
from models.db import connect_url, database, is_postgres
from models.migrations import MissingStepFile, SchemaVersion, Step, UnsupportedDatabase, migrate
from models.migrations.steps import BASELINE, PLATFORM_SERVICE_ID
from tests.generic_rows import fill_every_table, rows_per_table
from tests.private_databases import private_database, private_database_url, using
from tests.schema_shape import differences, schema_shape

# Step 120 moved the purge's daily tallies into the rollup's tables, row for row, and dropped theirs.
MOVED = {"daily_count": "daily_status_count", "daily_billing": "daily_usage"}
ROOT = Path(__file__).resolve().parent.parent
DIALECTS = ("sqlite", "postgresql")


def _dialect() -> str:
    return "postgresql" if is_postgres() else "sqlite"


@pytest.fixture
def sql_dir(tmp_path, monkeypatch) -> Path:
    """A copy of the steps' SQL files the runner reads instead, for a test to add to or take from."""
    copy = tmp_path / "sql"
    shutil.copytree(migrations.SQL_DIR, copy)
    monkeypatch.setattr(migrations, "SQL_DIR", copy)
    return copy


def _a_step_without_ddl(sql_dir: Path, version: int) -> None:
    for dialect in DIALECTS:
        (sql_dir / f"{version:04d}.{dialect}.sql").write_text(f"-- Step {version}: no DDL; {dialect}.\n")


def test_a_database_of_the_oldest_release_full_of_rows_upgrades_with_every_row_kept():
    with private_database("upgrade") as old, private_database("fresh") as fresh:
        with using(old):
            assert migrate(until=BASELINE) == [BASELINE]
            fill_every_table(old)
            assert all(count >= 3 for table, count in rows_per_table(old).items() if table != "schema_version")
            _the_platform_service_as_0_8_0_made_it(old)
            before = rows_per_table(old)

            applied = migrate()

            after = rows_per_table(old)
        with using(fresh):
            migrate()

        assert applied == [step.version for step in migrations.MIGRATIONS if step.version > BASELINE]
        expected = {table: count for table, count in before.items() if table not in MOVED}
        for gone, into in MOVED.items():
            expected[into] += before[gone]
        expected["schema_version"] += len(applied)
        assert {table: after.get(table) for table in expected} == expected
        assert differences(schema_shape(fresh), schema_shape(old)) == []
        service = peewee.Table("service", ("id", "permissions")).bind(old)
        permissions = service.select(service.permissions).where(service.id == PLATFORM_SERVICE_ID.hex).scalar()
        assert permissions == '["email","sms"]'  # step 155: the platform service sends texts too


def _the_platform_service_as_0_8_0_made_it(db: peewee.Database) -> None:
    service = peewee.Table("service").bind(db)
    row = dict(service.select().where(service.c.name == "name 0").dicts().get())
    service.insert(**{**row, "id": PLATFORM_SERVICE_ID.hex, "name": "Notify NL platform",
                      "permissions": '["email"]'}).execute()


def test_a_database_from_before_the_oldest_supported_release_is_refused_with_how_to_upgrade_it():
    with private_database("ancient") as old, using(old):
        old.create_tables([SchemaVersion])
        SchemaVersion.create(version=100, name="bulk jobs: when a job last progressed, its international rows")

        with pytest.raises(UnsupportedDatabase) as refusal:
            migrate()

        assert str(refusal.value) == REFUSAL
        assert old.get_tables() == ["schema_version"]


REFUSAL = ("this database's last migration step is 100, from a release older than 0.8.0: upgrade it with release"
           " 0.8.0's release step first (git checkout v0.8.0, install its requirements.txt, run python -m"
           " models.migrations), then with this one")


def test_the_release_step_refuses_a_database_too_old_to_upgrade_in_one_line_without_a_traceback(tmp_path):
    with private_database_url("ancient") as url:
        with contextlib.closing(connect_url(url)) as old, using(old):
            old.create_tables([SchemaVersion])
            SchemaVersion.create(version=100, name="bulk jobs: when a job last progressed, its international rows")
        env = {**os.environ, "DATABASE_URL": url, "INSTANCE_DIR": str(tmp_path)}

        done = subprocess.run([sys.executable, "-m", "models.migrations"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)

        assert (done.returncode, done.stdout, done.stderr) == (1, "", f"refusing to migrate: {REFUSAL}\n")
        with contextlib.closing(connect_url(url)) as old:
            assert old.get_tables() == ["schema_version"]


def test_a_current_database_is_left_alone():
    assert migrate() == []


def _a_service_with_a_row_in_every_table_that_refers_to_it():
    from models import crypto
    from models.notification import ReceivedText
    from models.service import (
        GuestListEntry,
        InboundNumber,
        LetterContact,
        ReplyToAddress,
        ServiceCallback,
        SmsSender,
        TeamMember,
    )
    from tests.factories import create_key, create_notification, create_sample_template, create_service

    service = create_service()
    create_key(service=service)
    for kind in ("sms", "email", "letter"):
        template = create_sample_template(service=service, template_type=kind, name=kind)
        create_notification(service=service, template=template, status="delivered")
    ReceivedText.create(service=service, notify_number="+3197010000001", user_number="+31612345678", content="Hoi")
    SmsSender.create(service=service, sms_sender="Gemeente", is_default=True)
    ReplyToAddress.create(service=service, email_address="balie@example.nl", is_default=True)
    LetterContact.create(service=service, contact_block="Gemeente\nPostbus 1", is_default=True)
    InboundNumber.create(service=service, number="+3197010000001")
    GuestListEntry.create(service=service, recipient="+31612345678", recipient_type="mobile")
    TeamMember.create(service=service, email_address="lid@example.nl")
    ServiceCallback.create(service=service, kind="delivery_status", url="https://example.nl/cb",
                           bearer_token_encrypted=crypto.encrypt("a-bearer-token-of-some-length"))
    return service


def test_a_step_that_rebuilds_a_table_on_sqlite_keeps_the_rows_that_refer_to_it(monkeypatch, sql_dir):
    """peewee's SqliteMigrator makes a column NOT NULL by copying the table, dropping it and renaming
    the copy: the rebuild SQLite's documentation describes, safe only with foreign keys off. With them
    on, release 0.9.0's step 150 deleted every key, template and message of a SQLite install."""
    _a_service_with_a_row_in_every_table_that_refers_to_it()
    database.execute_sql('ALTER TABLE "service" ADD COLUMN "motto" VARCHAR(255)')
    database.execute_sql("""UPDATE "service" SET "motto" = 'dienstbaar'""")

    def rebuild(db) -> None:
        apply(SchemaMigrator.from_database(db).add_not_null("service", "motto"))

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, Step(9999, "motto required", rebuild)])
    _a_step_without_ddl(sql_dir, 9999)
    before = rows_per_table(database)
    for table in ("apikey", "template", "notification", "receivedtext", "smssender", "servicecallback"):
        assert before[table], f"{table} holds no row to lose: the test would prove nothing"

    assert migrate() == [9999]

    assert rows_per_table(database) == {**before, "schema_version": before["schema_version"] + 1}
    assert not next(c for c in database.get_columns("service") if c.name == "motto").null
    if not is_postgres():
        assert database.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1  # on again after the step
    SchemaVersion.delete().where(SchemaVersion.version == 9999).execute()
    database.execute_sql('ALTER TABLE "service" DROP COLUMN "motto"')


def test_the_release_step_copies_a_sqlite_database_before_it_migrates_it(monkeypatch, sql_dir):
    if is_postgres():
        assert migrations.release(get_settings().database_url) == []  # nothing to copy, nothing pending
        return
    _a_service_with_a_row_in_every_table_that_refers_to_it()
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, Step(9999, "a later step")])
    _a_step_without_ddl(sql_dir, 9999)
    before = rows_per_table(database)
    database_file = Path(get_settings().database_url.removeprefix("sqlite:///"))

    assert migrations.release(get_settings().database_url) == [9999]

    copies = list((database_file.parent / "backups").glob(f"{database_file.stem}-*-before-step-9999*"))
    assert len(copies) == 1
    with contextlib.closing(sqlite3.connect(copies[0])) as copy:
        assert {table: copy.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0] for table in before} == before
    copies[0].unlink()
    SchemaVersion.delete().where(SchemaVersion.version == 9999).execute()


def test_every_step_has_its_two_sql_files_and_every_file_its_step():
    expected = {f"{step.version:04d}.{dialect}.sql" for step in migrations.MIGRATIONS for dialect in DIALECTS}
    assert {path.name for path in migrations.SQL_DIR.iterdir()} == expected


# Stops the release step as `python -m models.migrations` runs it, its steps' files read from the folder given.
RELEASE_STEP_READING = """
import runpy, sys
from pathlib import Path
import models.migrations
models.migrations.SQL_DIR = Path(sys.argv[1])
runpy.run_module("models.migrations", run_name="__main__")
"""


def test_a_missing_step_file_stops_the_release_step_with_one_line_naming_it(sql_dir):
    last = migrations.MIGRATIONS[-1].version
    missing = sql_dir / f"{last:04d}.{_dialect()}.sql"
    missing.rename(sql_dir / f"{last:04d}.{_dialect()}.sq")  # misnamed: once recorded as applied, nothing run
    refusal = f"migration step {last}'s SQL file is missing: {missing}"

    with private_database("misnamed") as fresh, using(fresh):
        with pytest.raises(MissingStepFile) as raised:
            migrate()
        assert str(raised.value) == refusal
        assert fresh.get_tables() == ["schema_version"]  # every file is read before the first step runs

    with private_database_url("misnamed-release") as url:
        done = subprocess.run([sys.executable, "-c", RELEASE_STEP_READING, str(sql_dir)], cwd=ROOT,
                              env={**os.environ, "DATABASE_URL": url}, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"release step stopped: {refusal}\n")
