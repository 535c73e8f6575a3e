"""A step that builds indexes concurrently (step 185) on PostgreSQL: it runs outside a transaction (so
the builds do not block the writers of the release running beside it, as PostgreSQL documents for
CREATE INDEX CONCURRENTLY), and an index an interrupted build left invalid is dropped and built again
when the step is run again."""
from __future__ import annotations

import pytest

from models.migrations import migrate
from models.migrations.steps import MIGRATIONS
from models.notification import KIND_INDEX
from tests.factories import create_notification, create_service
from tests.private_databases import private_database, using
from tests.test_scale_query_plans import URL

pytestmark = pytest.mark.skipif(not URL.startswith(("postgres://", "postgresql://")),
                                reason="concurrent index builds are PostgreSQL's")


def _index(db, name: str) -> tuple[bool, str] | None:
    row = db.execute_sql("SELECT pg_index.indisvalid, pg_get_indexdef(pg_index.indexrelid) FROM pg_index"
                         " JOIN pg_class ON pg_class.oid = pg_index.indexrelid WHERE pg_class.relname = %s",
                         (name,)).fetchone()
    return None if row is None else (row[0], row[1])


def test_step_185_runs_outside_a_transaction_on_postgresql():
    assert [step.transaction for step in MIGRATIONS if step.version == 185] == [False]


def test_an_index_left_invalid_by_an_interrupted_build_is_built_again():
    with private_database("concurrent") as db, using(db):
        migrate(until=180)
        service = create_service()
        for _ in range(2):
            create_notification(service=service, status="delivered")
        # An interrupted concurrent build leaves its index in place but invalid: made so here by building
        # a unique index of the same name over rows that are not unique.
        with pytest.raises(Exception, match="could not create unique index"):
            db.execute_sql(f'CREATE UNIQUE INDEX CONCURRENTLY "{KIND_INDEX}" ON "notification" ("service_id")')
        assert _index(db, KIND_INDEX)[0] is False

        assert 185 in migrate()
        valid, definition = _index(db, KIND_INDEX)
        assert valid and "UNIQUE" not in definition
        assert "(service_id, key_type, notification_type, status, created_at, id)" in definition
