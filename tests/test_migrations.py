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
