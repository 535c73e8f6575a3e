"""Schema migrations run against the test database (SQLite or PostgreSQL)."""
from __future__ import annotations

from models.db import database
from models.migrations import SchemaVersion, migrate
from models.notification import Notification


def test_a_database_from_before_fragment_counts_is_upgraded_in_place():
    database.execute_sql('ALTER TABLE "notification" DROP COLUMN "fragment_count"')
    SchemaVersion.delete().where(SchemaVersion.version == 4).execute()

    assert migrate() == [4]
    assert "fragment_count" in {c.name for c in database.get_columns(Notification._meta.table_name)}
    assert migrate() == []


def test_the_unused_created_at_index_is_dropped():
    database.execute_sql('CREATE INDEX IF NOT EXISTS "notification_created_at" ON "notification" ("created_at")')
    SchemaVersion.delete().where(SchemaVersion.version == 5).execute()

    assert migrate() == [5]
    assert "notification_created_at" not in {i.name for i in database.get_indexes(Notification._meta.table_name)}


def test_the_provider_reference_index_keeps_only_rows_that_have_one():
    database.execute_sql('DROP INDEX IF EXISTS "notification_provider_reference"')
    database.execute_sql('CREATE INDEX "notification_provider_reference" ON "notification" ("provider_reference")')
    SchemaVersion.delete().where(SchemaVersion.version == 6).execute()

    assert migrate() == [6]
    index = next(i for i in database.get_indexes(Notification._meta.table_name)
                 if i.name == "notification_provider_reference")
    assert "provider_reference is not null" in " ".join(index.sql.lower().replace('"', "").split())


def test_a_database_from_before_jobs_gets_the_job_table_and_who_sent_columns():
    database.execute_sql('DROP INDEX IF EXISTS "notification_job_id_job_row_number"')
    for name in ("job_id", "job_row_number", "created_by_user_id"):
        database.execute_sql(f'ALTER TABLE "notification" DROP COLUMN "{name}"')
    database.execute_sql('DROP TABLE "job"')
    SchemaVersion.delete().where(SchemaVersion.version == 90).execute()

    assert migrate() == [90]
    columns = {c.name for c in database.get_columns(Notification._meta.table_name)}
    assert {"job_id", "job_row_number", "created_by_user_id"} <= columns
    assert "job" in database.get_tables()
    assert "notification_job_id_job_row_number" in {i.name for i in database.get_indexes("notification")}
    assert migrate() == []


def test_a_database_from_before_letter_validation_reasons_gets_the_column():
    database.execute_sql('ALTER TABLE "notification" DROP COLUMN "validation_failure"')
    SchemaVersion.delete().where(SchemaVersion.version == 95).execute()

    assert migrate() == [95]
    assert "validation_failure" in {c.name for c in database.get_columns(Notification._meta.table_name)}
    assert migrate() == []


def test_a_database_from_before_the_recipient_search_gets_its_index():
    from models.notification import RECIPIENT_INDEX

    database.execute_sql(f'DROP INDEX "{RECIPIENT_INDEX}"')
    SchemaVersion.delete().where(SchemaVersion.version == 96).execute()

    assert migrate() == [96]
    assert RECIPIENT_INDEX in {i.name for i in database.get_indexes("notification")}
    assert migrate() == []
