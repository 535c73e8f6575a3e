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
    database.execute_sql('DROP TABLE "job_rows"')  # step 170's, which refers to the job table
    database.execute_sql('DROP TABLE "job"')
    SchemaVersion.delete().where(SchemaVersion.version.in_([90, 170])).execute()

    assert migrate() == [90, 170]
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


def _as_before_the_one_daily_store() -> None:
    """The daily tables as they were before step 120, holding what the store holds now: the rollup's rows
    in daily_status_count and daily_usage without `purged`, the purge's tally in daily_count and
    daily_billing."""
    import peewee

    from models.daily_rollup import DailyStatusCount, DailyUsage
    from models.db import BaseModel
    from models.service import Service

    def table(name, *columns):
        fields = {column: peewee.IntegerField() if column in ("rate_multiplier", "billable_units")
                  else peewee.DateField() if column == "day" else peewee.CharField() for column in columns}
        meta = type("Meta", (), {"table_name": name, "indexes": ((("service", *columns), True),)})
        return type(name, (BaseModel,), {"id": peewee.BigAutoField(), "service": peewee.ForeignKeyField(
            Service, on_delete="CASCADE", index=False), **fields, "count": peewee.BigIntegerField(), "Meta": meta})

    statuses = ("day", "notification_type", "key_type", "status")
    billing = ("day", "notification_type", "postage", "rate_multiplier", "billable_units")
    for model, columns, old_table in ((DailyStatusCount, statuses, "daily_count"),
                                      (DailyUsage, billing, "daily_billing")):
        rows = list(model.select().dicts())
        database.drop_tables([model])
        rolled_up, tally = table(model._meta.table_name, *columns), table(old_table, *columns)
        database.create_tables([rolled_up, tally])
        for row in rows:
            (tally if row.pop("purged") else rolled_up).insert(**{k: v for k, v in row.items() if k != "id"}).execute()


def test_the_purges_daily_tables_move_into_the_rollups_and_every_days_figures_stay():
    import datetime

    from core.daily_figures import billing_counts, status_counts
    from models.daily_rollup import DailyStatusCount, DailyUsage
    from models.db import utcnow
    from pipeline import daily_rollup, retention
    from tests.factories import create_notification, create_service

    now = utcnow()
    service = create_service(sms_retention_days=3, letter_retention_days=3, email_retention_days=3)
    for days_ago in (0, 1, 2, 5, 6, 9):
        at = now - datetime.timedelta(days=days_ago)
        create_notification(service=service, status="delivered", billable_units=2, rate_multiplier=1, created_at=at)
        create_notification(service=service, status="sending", billable_units=1, rate_multiplier=2, created_at=at)
        create_notification(service=service, notification_type="letter", status="delivered", billable_units=3,
                            postage="second", created_at=at)
        create_notification(service=service, key_type="test", status="delivered", billable_units=1, created_at=at)
    # Nine days ago is purged before any rollup (its figures: the purge's alone); then six to one day ago
    # are rolled up; then five and six days ago are purged too (rolled-up days, partly purged), and the
    # next rollup sums the unsettled ones again from what is held and the purge's tally.
    retention.purge_notifications(now=now - datetime.timedelta(days=4))
    daily_rollup.roll_up(now=now)
    retention.purge_notifications(now=now)
    daily_rollup.roll_up(now=now)
    start, end = now.date() - datetime.timedelta(days=12), now.date() + datetime.timedelta(days=1)
    figures = (status_counts(service.id, start, end, ("live", "team", "test")), billing_counts(service.id, start, end))
    assert DailyStatusCount.select().where(DailyStatusCount.purged).exists()
    assert DailyStatusCount.select().where(~DailyStatusCount.purged).exists()
    assert DailyUsage.select().where(DailyUsage.purged).exists()

    _as_before_the_one_daily_store()
    assert {"daily_count", "daily_billing"} <= set(database.get_tables())
    SchemaVersion.delete().where(SchemaVersion.version == 120).execute()

    assert migrate() == [120]
    assert not {"daily_count", "daily_billing"} & set(database.get_tables())
    assert (status_counts(service.id, start, end, ("live", "team", "test")), billing_counts(service.id, start, end)) \
        == figures
    assert sum(figures[0].values()) == 6 * 4  # every notification made, once
    assert migrate() == []


def test_api_keys_from_before_expiry_dates_get_the_columns():
    for name in ("expires_at", "expiry_warned_at"):
        database.execute_sql(f'ALTER TABLE "apikey" DROP COLUMN "{name}"')
    SchemaVersion.delete().where(SchemaVersion.version == 160).execute()

    assert migrate() == [160]
    assert {"expires_at", "expiry_warned_at"} <= {c.name for c in database.get_columns("apikey")}
    assert migrate() == []


def test_a_database_from_before_organisations_gets_their_tables_and_columns():
    from models.go_live import GoLiveRequest
    from models.organisation import ORGANISATION_TABLES
    from models.rate import Rate
    from models.service import Service

    database.drop_tables(ORGANISATION_TABLES)
    for model, fields in ((Service, ["time_zone"]), (Rate, ["rate_table"]),
                          (GoLiveRequest, ["expected_volumes", "recipients", "organisation_id",
                                           "organisation_approved_by_name", "organisation_approved_at"])):
        for index in database.get_indexes(model._meta.table_name):
            if any(name in index.columns for name in fields):
                database.execute_sql(f'DROP INDEX "{index.name}"')
        for name in fields:
            database.execute_sql(f'ALTER TABLE "{model._meta.table_name}" DROP COLUMN "{name}"')
    database.execute_sql('CREATE UNIQUE INDEX "rate_notification_type_postage_valid_from" ON "rate"'
                         ' ("notification_type", "postage", "valid_from")')
    SchemaVersion.delete().where(SchemaVersion.version == 165).execute()

    assert migrate() == [165]
    assert {m._meta.table_name for m in ORGANISATION_TABLES} <= set(database.get_tables())
    assert "time_zone" in {c.name for c in database.get_columns("service")}
    rate_indexes = {tuple(i.columns) for i in database.get_indexes("rate") if i.unique}
    assert ("rate_table", "notification_type", "postage", "valid_from") in rate_indexes
    assert ("notification_type", "postage", "valid_from") not in rate_indexes
    assert Service.create(name="After").time_zone == "Europe/Amsterdam"
    assert migrate() == []


def test_a_database_from_before_account_settings_gets_the_mobile_number_and_email_changes():
    from models.platform import PLATFORM_SERVICE_ID, PLATFORM_SERVICE_NAME
    from models.service import Service
    from models.user import EmailChange, User

    database.execute_sql(f'ALTER TABLE "{User._meta.table_name}" DROP COLUMN "mobile_number"')
    database.execute_sql(f'DROP TABLE "{EmailChange._meta.table_name}"')
    Service.create(id=PLATFORM_SERVICE_ID, name=PLATFORM_SERVICE_NAME, trial_mode=False, permissions=["email"])
    SchemaVersion.delete().where(SchemaVersion.version == 155).execute()

    assert migrate() == [155]
    assert "mobile_number" in {c.name for c in database.get_columns(User._meta.table_name)}
    assert EmailChange._meta.table_name in database.get_tables()
    assert Service.get_by_id(PLATFORM_SERVICE_ID).permissions == ["email", "sms"]
    assert migrate() == []


def test_a_database_from_before_time_zones_gets_the_column_with_amsterdam_for_every_service():
    from tests.factories import create_service

    create_service()
    database.execute_sql('ALTER TABLE "service" DROP COLUMN "time_zone"')
    SchemaVersion.delete().where(SchemaVersion.version == 150).execute()

    assert migrate() == [150]
    assert [row[0] for row in database.execute_sql('SELECT "time_zone" FROM "service"').fetchall()] == [
        "Europe/Amsterdam"]
    assert migrate() == []


def test_a_database_from_before_job_rows_in_parts_gets_their_table():
    database.execute_sql('DROP TABLE "job_rows"')
    SchemaVersion.delete().where(SchemaVersion.version == 170).execute()

    assert migrate() == [170]
    assert {c.name for c in database.get_columns("job_rows")} == {"job_id", "part", "first_row", "rows"}
    assert [k.dest_table for k in database.get_foreign_keys("job_rows")] == ["job"]
    assert migrate() == []
