"""A step that builds indexes concurrently (step 185) on PostgreSQL: it runs outside a transaction, writers
of the release running beside it are not blocked, and an index an interrupted build left invalid is
dropped and built again when the step is run again."""
from __future__ import annotations

import threading

import psycopg2
import pytest

from models.db import connect_url
from models.migrations import migrate
from models.migrations.steps import MIGRATIONS
from models.notification import KIND_INDEX
from tests.factories import create_notification, create_service
from tests.private_databases import private_database, private_database_url, using
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


def test_writers_go_on_while_the_step_runs():
    """While a transaction of the running release holds a write, the build waits for it; a plain CREATE
    INDEX would queue its lock there and block every writer after it, the concurrent one lets them by."""
    with private_database_url("concurrent_writes") as url:
        db = connect_url(url)
        try:
            with using(db):
                migrate(until=180)
                service = create_service()
            finished = threading.Event()

            def step() -> None:
                migrate()
                finished.set()

            with using(db), db.atomic():
                create_notification(service=service, status="delivered")  # a write transaction left open
                runner = threading.Thread(target=lambda: _in(db, step))
                runner.start()
                assert not finished.wait(2.0)  # the build waits for the open transaction
                writer = psycopg2.connect(url)
                try:
                    writer.cursor().execute("SET statement_timeout = '10s'")
                    writer.cursor().execute(
                        'UPDATE "notification" SET "updated_at" = now() WHERE "service_id" = %s', (service.id.hex,))
                    writer.commit()  # another writer went through meanwhile
                finally:
                    writer.close()
            runner.join(120)
            assert finished.is_set()
            assert _index(db, KIND_INDEX)[0] is True
        finally:
            db.close()


def _in(db, run) -> None:
    with using(db):
        run()
