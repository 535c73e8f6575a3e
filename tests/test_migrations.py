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


def test_a_database_from_before_template_folders_gets_the_folder_table_and_column():
    database.execute_sql('ALTER TABLE "template" DROP COLUMN "folder_id"')
    database.execute_sql('DROP TABLE "templatefolder"')
    SchemaVersion.delete().where(SchemaVersion.version == 91).execute()

    assert migrate() == [91]
    assert "folder_id" in {c.name for c in database.get_columns("template")}
    assert "templatefolder" in database.get_tables()
def test_a_job_table_from_before_progress_gets_progressed_at_and_international_rows():
    for name in ("progressed_at", "international_rows"):
        database.execute_sql(f'ALTER TABLE "job" DROP COLUMN "{name}"')
    SchemaVersion.delete().where(SchemaVersion.version == 100).execute()

    assert migrate() == [100]
    assert {"progressed_at", "international_rows"} <= {c.name for c in database.get_columns("job")}
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


def test_a_database_from_before_messages_reports_gets_their_table():
    database.execute_sql('DROP TABLE "message_report"')
    SchemaVersion.delete().where(SchemaVersion.version == 97).execute()

    assert migrate() == [97]
    assert "message_report" in database.get_tables()
def test_a_database_from_before_the_daily_rollup_gets_its_tables():
    for table in ("daily_usage", "daily_status_count", "rolled_up_day"):
        database.execute_sql(f'DROP TABLE "{table}"')
    SchemaVersion.delete().where(SchemaVersion.version == 110).execute()

    assert migrate() == [110]
    assert {"daily_usage", "daily_status_count", "rolled_up_day"} <= set(database.get_tables())
    assert "rolledupday_service_id_day" in {i.name for i in database.get_indexes("rolled_up_day")}
    assert migrate() == []
