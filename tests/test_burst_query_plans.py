"""A burst of sends on PostgreSQL, newer than the table's statistics: the workers' status moves still
find their rows by primary key. Planned on statistics that saw the table quiet, the batch move to
`sending` once read the whole table in every statement, for every row still `created` (50-80 ms each):
a backlog drained at a third of its speed until most of it had moved on.

The database is this test's own (`<db>_burst`), created and dropped here, so that no other test's rows
or statistics decide the plan.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from models import crypto
from models.db import utcnow
from pipeline.domain import statuses
from pipeline.stages import status_changes
from tests.factories import create_service
from tests.test_scale_query_plans import URL, own_database, plan, statements, using

pytestmark = pytest.mark.skipif(not URL.startswith(("postgres://", "postgresql://")),
                                reason="query plans are PostgreSQL's")
BURST = 5_000

_BURST = """
INSERT INTO notification (id, service_id, key_type, notification_type, template_id, template_version, "to",
                          normalised_to, status, body, created_at, international, precompiled)
SELECT gen_random_uuid(), %s, 'live', 'sms', %s, 1, '+31612345678', '+31612345678', 'created', %s, %s, false, false
FROM generate_series(1, {rows})
"""


@pytest.fixture
def burst_db() -> Iterator:
    with own_database("burst") as db, using(db):
        yield db


def test_a_batch_moved_to_sending_is_found_by_id_in_a_burst_the_statistics_have_not_seen(burst_db):
    service = create_service()
    burst_db.execute_sql("ANALYZE notification")  # as last gathered: a quiet table
    burst_db.execute_sql(_BURST.format(rows=BURST), (service.id.hex, uuid.uuid4().hex, crypto.encrypt("Hallo"),
                                                    utcnow()))
    ids = [row[0] for row in burst_db.execute_sql("SELECT id FROM notification LIMIT 20")]

    with burst_db.atomic() as transaction, statements(burst_db) as seen:
        moved = status_changes.transition_each(
            statuses.SENDING, [(each, {"sent_at": utcnow(), "provider_reference": "r"}) for each in ids])
        transaction.rollback()

    assert moved == [True] * 20
    (sql, params), = [(sql, params) for sql, params in seen if sql.startswith('WITH "changes"')]
    text = plan(burst_db, sql, params)
    assert "notification_pkey" in text and "Seq Scan on notification" not in text, text
