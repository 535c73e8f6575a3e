"""A million notifications on PostgreSQL: the list with each filter, the retention purge and the periodic
sweeps read index ranges, never the whole table.

The rows are made by SQL (generate_series) in a database of this test's own, named after DATABASE_URL's
(`<db>_scale`), created and dropped here. Every statement the code under test runs is caught as it runs
(peewee's query hooks) and EXPLAINed there, so the plans checked are those of the code as it is, whatever
shape its queries take.

A million rows over 20 services stand for ten million of one service (issue 45; bench/scale.py times
that): the planner chooses from the statistics, which give each value's share of the rows, and every
plan's cost grows with the row count alike, so the choice between an index range and a filter or a sort
is the same at either size for the same shares. What the checks require holds at any size: each read is
an index range bounded by equality on the service, key type and filter, read in the page's order, and
what is sorted is at most a page. The generator's statuses follow time as a real table's do (the last
minute `created`, the last day `sending`), which is what made a status filter read past every newer row.
"""
from __future__ import annotations

import datetime
import math
import os
import re
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import peewee
import pytest

from models import crypto
from models.api_key import KEY_TYPES
from models.db import utcnow
from models.migrations import migrate
from models.notification import CHANNEL_INDEX, FAILED_INDEX, FAILED_STATUSES, KIND_INDEX, Notification
from models.queries import PAGE_SIZE, retention_cutoff
from models.service import CHANNELS
from pipeline.domain import statuses
from pipeline.infrastructure.throughput.fast import dispatch as fast_dispatch
from pipeline.stages import status_changes
from pipeline.stages.receipts import _record_sent_from_receipts
from pipeline.stages.retention import purge_notifications
from pipeline.stages.sending_timeout import time_out_overdue
from tests.factories import create_key, create_service
from tests.private_databases import private_database, using
from workers.letters import sweep_stuck_letters
from workers.periodic import sweep_stuck_notifications

URL = os.environ.get("DATABASE_URL", "")
pytestmark = pytest.mark.skipif(not URL.startswith(("postgres://", "postgresql://")),
                                reason="query plans at scale are PostgreSQL's")

ROWS = 1_000_000
SERVICES = 20
# Ages spread over 7 days and 3 hours: about 1.7% of the rows are past the 7-day retention.
AGE_SPAN_SECONDS = 7 * 86400 + 3 * 3600
LIST_INDEX = "notification_service_id_key_type_created_at_id"
REFERENCE_INDEX = "notification_service_id_key_type_reference_created_at_id"
STATUS_INDEX_SCAN = re.compile(r"Index Scan (?:Backward )?using notification_status_created_at on \S+ \S+  "
                               r"\(cost=\S+ rows=(\d+)")
FULL_SORT = re.compile(r"^\s*(?:->\s*)?Sort\s+\(cost=\S+ rows=(\d+)", re.MULTILINE)  # rows: the planner's estimate

_GENERATE = """
INSERT INTO notification (id, service_id, key_type, notification_type, template_id, template_version, "to",
                          normalised_to, reference, status, body, created_at, international, precompiled)
SELECT gen_random_uuid(), (%s::uuid[])[1 + i %% {services}],
       CASE WHEN (i / {services}) %% 5 = 0 THEN 'test' ELSE 'live' END,
       (ARRAY['sms', 'email', 'letter'])[1 + (i / 7) %% 3],
       %s::uuid, 1, '+31612345678', '+31612345678',
       CASE WHEN i %% 3 = 0 THEN 'ref-' || (i %% 40000) END,
       CASE WHEN age < 60 THEN 'created'
            WHEN age < 86400 OR (age > 3 * 86400 AND i %% 50000 = 0) THEN 'sending'
            ELSE (ARRAY['delivered', 'delivered', 'delivered', 'permanent-failure', 'temporary-failure',
                        'technical-failure'])[1 + i %% 6] END,
       %s, %s::timestamp - age * interval '1 second', false, false
FROM (SELECT i, (i::bigint * 7919) %% {span} AS age FROM generate_series(1, {rows}) AS i) AS numbered
{order}
"""


def generate(db: peewee.Database, services: list, rows: int, now: datetime.datetime, *,
             time_ordered: bool = False) -> None:
    """rows notifications over services, made by the database itself (seconds for a million). Stored in
    a shuffled order of creation, or (time_ordered) oldest first, as a table written over time is."""
    sql = _GENERATE.format(services=len(services), rows=rows, span=AGE_SPAN_SECONDS,
                           order="ORDER BY age DESC" if time_ordered else "")
    db.execute_sql(sql, ([str(s.id) for s in services], str(uuid.uuid4()), crypto.encrypt("Hallo"), now))
    db.execute_sql("ANALYZE")


@contextmanager
def own_database(suffix: str) -> Iterator[peewee.Database]:
    """A migrated database of the caller's own, named after DATABASE_URL's (`<db>_<suffix>`), dropped
    afterwards, so no other test's rows or statistics decide a plan (the models use it within using())."""
    with private_database(suffix) as db:
        with using(db):
            migrate()
        yield db


@pytest.fixture(scope="module")
def scale() -> Iterator[dict]:
    with own_database("scale") as db:
        with using(db):
            services = [create_service(name=f"scale {n}") for n in range(SERVICES)]
            now = utcnow()
            generate(db, services, ROWS, now)
            key = create_key(service=services[0])
            reference = db.execute_sql(
                "SELECT reference FROM notification WHERE service_id = %s AND key_type = 'live'"
                " AND reference IS NOT NULL LIMIT 1", (services[0].id,)).fetchone()[0]
        yield {"db": db, "services": services, "key": key, "now": now, "reference": reference}


@contextmanager
def statements(db: peewee.Database) -> Iterator[list[tuple[str, tuple]]]:
    """The statements run on db meanwhile, with their parameters."""
    seen: list[tuple[str, tuple]] = []

    def hook(event: peewee.QueryEvent) -> None:
        seen.append((event.sql, tuple(event.params or ())))

    db.query_hooks.append(hook)
    try:
        yield seen
    finally:
        db.query_hooks.remove(hook)


def plan(db: peewee.Database, sql: str, params: tuple) -> str:
    return "\n".join(row[0] for row in db.execute_sql("EXPLAIN " + sql, params).fetchall())


def notification_reads(seen: list[tuple[str, tuple]]) -> list[tuple[str, tuple]]:
    # A UNION ALL's parts are parenthesised on PostgreSQL: "(SELECT ...) UNION ALL (SELECT ...)".
    return [(sql, params) for sql, params in seen
            if sql.lstrip("(").startswith("SELECT") and 'FROM "notification"' in sql]


def assert_index_only(text: str) -> None:
    assert "Index" in text and "Seq Scan" not in text, text


LIST_FILTERS = [
    "", "status=delivered", "status=created", "status=failed&status=sending", "template_type=letter",
    "template_type=sms&template_type=letter",
    "template_type=sms&status=technical-failure", "reference={reference}", "reference={reference}&status=delivered",
    "reference=no-such-reference", "status=pending-virus-check", "status=accepted", "status=received&status=failed",
    "template_type=email&template_type=letter&status=delivered", "include_jobs=true&status=temporary-failure",
]


@pytest.mark.parametrize("query", LIST_FILTERS)
def test_the_list_with_each_filter_reads_an_index_range_in_order(scale, client, query):
    db, query = scale["db"], query.format(reference=scale["reference"])
    headers = {"Authorization": f"Bearer {_token(scale['key'])}"}
    with using(db), statements(db) as seen:
        first = client.get(f"/v2/notifications?{query}", headers=headers)
        assert first.status_code == 200, first.get_json()
        rows = first.get_json()["notifications"]
        if rows:  # and the page after it: the cursor is a range bound, not a filter
            following = client.get(f"/v2/notifications?{query}&older_than={rows[-1]['id']}", headers=headers)
            assert following.status_code == 200
    reads = notification_reads(seen)
    assert reads
    for sql, params in reads:
        text = plan(db, sql, params)
        assert_index_only(text)
        if "ORDER BY" in sql:
            # No sort of the service's rows: an index gives the order, or (a rare status, read off the
            # (status, created_at) index) what is sorted is at most a page of matching rows.
            assert all(int(rows) <= PAGE_SIZE for rows in FULL_SORT.findall(text)), text
            if "reference=" in query:
                assert f"Index Scan Backward using {REFERENCE_INDEX} " in text, text
            elif "template_type=" in query and "status=" not in query:
                # A channel alone: a range per channel, each read in order, whatever its statuses.
                channels = query.count("template_type=")
                assert text.count(f"Index Scan Backward using {CHANNEL_INDEX} ") == channels, text
                assert f"using {KIND_INDEX} " not in text and f"using {LIST_INDEX} " not in text, text
            elif "status=failed" in query:
                # Every failure at once: a range per channel of the failed rows' index.
                assert text.count(f"Index Scan Backward using {FAILED_INDEX} ") == len(CHANNELS), text
                assert f"using {LIST_INDEX} " not in text, text
            elif "status=" in query:
                # A range per channel and status, each read in order; pages merged, never the rows sorted.
                # A status the statistics hold (almost) no row of may be read off (status, created_at)
                # instead: then that status's rows are few in the whole table.
                rare = STATUS_INDEX_SCAN.findall(text)
                assert f"Index Scan Backward using {KIND_INDEX} " in text or rare, text
                assert all(int(rows) <= 10 for rows in rare) and f"using {LIST_INDEX} " not in text, text
            elif not FULL_SORT.search(text):
                assert "Index Scan Backward" in text, text
        else:
            assert "notification_pkey" in text, text  # the cursor's own row, found by id
    if query.startswith(f"reference={scale['reference']}"):
        assert rows and {row["reference"] for row in rows} == {scale["reference"]}


def test_the_failures_index_holds_what_the_failed_filter_names():
    assert set(FAILED_STATUSES) == set(statuses.FAILURES) == set(statuses.FILTER_VALUES["failed"])


def _expired(scale: dict) -> Counter:
    """Rows past their service's retention for their channel, per service and key type."""
    expired: Counter = Counter()
    for service in scale["services"]:
        for channel in CHANNELS:
            cutoff = retention_cutoff(service, channel, scale["now"])
            for key_type in KEY_TYPES:
                expired[(service.id, key_type)] += Notification.select().where(
                    (Notification.service == service) & (Notification.key_type == key_type)
                    & (Notification.notification_type == channel) & (Notification.created_at < cutoff)).count()
    return expired


def test_the_purge_walks_each_services_expired_rows_once_in_index_order(scale):
    db, batch = scale["db"], 500
    with using(db):
        expired = _expired(scale)
        assert sum(expired.values()) > 10_000
        with statements(db) as seen:
            purged = purge_notifications(now=scale["now"], batch_size=batch)
        assert purged.notifications == sum(expired.values())
        assert sum(_expired(scale).values()) == 0
    reads = notification_reads(seen)
    # One read per batch and one that finds the walk's end, per service and key type: no row read twice.
    assert len(reads) == sum(math.floor(n / batch) + 1 for n in expired.values())
    continuing = 0
    for sql, params in reads:
        text = plan(db, sql, params)
        assert_index_only(text)
        # The list index bounds the read to the service's key type and the expired range (an index scan in
        # order, or, for a range the planner expects to be small, a bitmap scan and a sort of those rows).
        assert re.search(rf"Index Scan (using|on) {LIST_INDEX}\b", text), text
        assert all(int(rows) <= batch for rows in FULL_SORT.findall(text)), text
        assert re.search(r"Index Cond: \(\(service_id = .* AND \(\(key_type\)::text = .* AND \(created_at < ",
                         text), text
        if "ROW(created_at, id) >" in text:
            continuing += 1
    assert continuing == sum(math.floor(n / batch) for n in expired.values())


def test_the_sweeps_read_index_ranges(scale):
    db = scale["db"]
    with using(db), statements(db) as seen:
        assert time_out_overdue(batch_size=10) > 0
        sweep_stuck_notifications.fn()
        sweep_stuck_letters.fn()
    reads = notification_reads(seen)
    assert len(reads) >= 4
    for sql, params in reads:
        assert_index_only(plan(db, sql, params))


def _token(key: str) -> str:
    from core.tokens import create_token

    return create_token(key[-73:-37], key[-36:])


def test_statements_on_rows_found_by_id_leave_the_status_index_alone(scale):
    """A worker's reads and status moves name their rows by id: the primary key finds them. The
    (status, created_at) index holds an entry for every row that passed through a status until VACUUM
    clears it, and a bitmap scan never marks one dead, so a plan that ANDs it with the primary key
    reads every row moved through that status lately to narrow a few found by id."""
    db = scale["db"]

    def ids(status: str) -> list:
        return [row[0] for row in db.execute_sql(
            "SELECT id FROM notification WHERE status = %s AND notification_type = 'sms' LIMIT 20", (status,))]

    with using(db):
        created, sending = ids("created"), ids("sending")
        assert len(created) == len(sending) == 20
        with db.atomic() as transaction, statements(db) as seen:
            fast_dispatch._awaiting([uuid.UUID(str(each)) for each in created])
            fast_dispatch._claim_many([uuid.UUID(str(each)) for each in created[14:18]])
            status_changes.transition_many(sending, statuses.DELIVERED)
            status_changes.transition_many(sending[:5], statuses.PERMANENT_FAILURE, where={Notification.sent_by: None})
            status_changes.transition(created[0], statuses.SENDING, sent_at=scale["now"])
            status_changes.transition_each(statuses.SENDING, [
                (each, {"sent_at": scale["now"], "provider_reference": "ref"}) for each in created[10:14]])
            _record_sent_from_receipts("firetext", [({"id": "ref"}, str(each)) for each in created[1:]])
            transaction.rollback()
    moves = [(sql, params) for sql, params in seen if '"notification"' in sql and "WHERE" in sql]
    assert len(moves) >= 7
    for sql, params in moves:
        text = plan(db, sql, params)
        assert "notification_pkey" in text and "notification_status_created_at" not in text, (sql, text)
