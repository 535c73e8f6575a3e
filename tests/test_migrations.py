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
