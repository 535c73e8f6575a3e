"""The list query reads the (service, key_type, created_at, id) index backwards and never sorts; a filtered
one reads a range of (service, key_type, notification_type, status, created_at, id) per channel and status,
or of (service, key_type, notification_type, created_at, id) per channel for a channel alone.

Runs on whichever database DATABASE_URL points at: PostgreSQL's EXPLAIN must show an index scan
backward on that index with no Sort node; SQLite's EXPLAIN QUERY PLAN must show a SEARCH using that
index with no temporary B-tree for the ORDER BY.
"""
from __future__ import annotations

import datetime
import random
import re
import uuid

import pytest

from models.db import database, is_postgres, utcnow
from models.notification import CHANNEL_INDEX, KIND_INDEX, Notification
from models.queries import NotificationFilters, notifications_page_query
from tests.factories import create_service

INDEX = "notification_service_id_key_type_created_at_id"
ROWS = 20_000


@pytest.fixture
def services():
    """Many rows over several services, key types and channels, as in a busy real table."""
    services = [create_service() for _ in range(4)]
    now, rng = utcnow(), random.Random(6)
    rows = [{
        "id": uuid.uuid4(), "service": rng.choice(services).id, "key_type": rng.choice(["live", "live", "test"]),
        "notification_type": rng.choice(["sms", "email"]), "to": "+31612345678",
        "status": rng.choice(["delivered", "sending", "created", "permanent-failure"]),
        # A spread of ages over the retention period, many rows sharing one second.
        "created_at": now - datetime.timedelta(seconds=rng.randrange(6 * 24 * 3600) // 60 * 60),
    } for _ in range(ROWS)]
    with database.atomic():
        for start in range(0, ROWS, 1000):
            Notification.insert_many(rows[start:start + 1000]).execute()
    database.execute_sql("ANALYZE")
    return services


def plan(query) -> str:
    sql, params = query.sql()
    if is_postgres():
        return "\n".join(row[0] for row in database.execute_sql("EXPLAIN " + sql, params).fetchall())
    return "\n".join(row[-1] for row in database.execute_sql("EXPLAIN QUERY PLAN " + sql, params).fetchall())


def assert_index_range_without_sort(text: str) -> None:
    if is_postgres():
        assert f"Index Scan Backward using {INDEX} on notification" in text, text
        assert "Sort" not in text and "Seq Scan" not in text, text
    else:
        # peewee aliases the table (t1): match the index and its equality columns, not the alias.
        assert re.search(rf"SEARCH \w+ USING INDEX {INDEX} \(service_id=\? AND key_type=\?", text), text
        assert "TEMP B-TREE" not in text and not re.search(r"\bSCAN\b", text), text


def test_first_page_uses_the_index(services):
    query = notifications_page_query(services[0], "live", NotificationFilters())
    assert_index_range_without_sort(plan(query))
    assert len(list(query)) == 250


def test_page_after_a_cursor_uses_the_index(services):
    newest = list(notifications_page_query(services[1], "live", NotificationFilters()))
    query = notifications_page_query(services[1], "live", NotificationFilters(), newest[-1].id)
    text = plan(query)
    assert_index_range_without_sort(text)
    if is_postgres():
        # The cursor is part of the index condition, not a filter over rows already read.
        assert "ROW(created_at, id) <" in text, text
    else:
        assert "(created_at,id)<(?,?)" in text, text
    following = list(query)
    assert len(following) == 250 and following[0].created_at <= newest[-1].created_at


def test_filters_read_a_range_per_channel_and_status_merged_in_order(services):
    """A status filter reads the (service, key_type, notification_type, status, created_at, id) index, one
    range per channel and status, each in order: only pages are merged, and the rows are those a plain
    filter of the service's rows finds, newest first."""
    filters = NotificationFilters(statuses=("delivered", "sending"), notification_types=("sms", "email"))
    query = notifications_page_query(services[2], "live", filters)
    text = plan(query)
    if is_postgres():
        assert text.count(f"Index Scan Backward using {KIND_INDEX} on notification") == 4, text
        assert "Merge Append" in text and "Seq Scan" not in text, text
    else:
        assert len(re.findall(rf"SEARCH \w+ USING INDEX {KIND_INDEX} \(service_id=\? AND key_type=\? AND "
                              rf"notification_type=\? AND status=\?", text)) == 4, text
        assert not re.search(r"\bSCAN \w+\b(?! \(subquery)", text), text
    expected = list(Notification.select().where(
        (Notification.service == services[2]) & (Notification.key_type == "live")
        & Notification.status.in_(["delivered", "sending"]) & Notification.notification_type.in_(["sms", "email"]))
        .order_by(Notification.created_at.desc(), Notification.id.desc()).limit(250))
    assert [row.id for row in query] == [row.id for row in expected]


def test_a_channel_filter_alone_reads_a_range_per_channel_merged_in_order(services):
    """A channel without a status reads the (service, key_type, notification_type, created_at, id) index,
    one range per channel: a range per status of each would cost more to plan than to read."""
    filters = NotificationFilters(notification_types=("sms", "email"))
    query = notifications_page_query(services[2], "live", filters)
    text = plan(query)
    if is_postgres():
        assert text.count(f"Index Scan Backward using {CHANNEL_INDEX} on notification") == 2, text
        assert "Merge Append" in text and "Seq Scan" not in text, text
    else:
        assert len(re.findall(rf"SEARCH \w+ USING INDEX {CHANNEL_INDEX} \(service_id=\? AND key_type=\? AND "
                              rf"notification_type=\?", text)) == 2, text
        assert not re.search(r"\bSCAN \w+\b(?! \(subquery)", text), text
    expected = list(Notification.select().where(
        (Notification.service == services[2]) & (Notification.key_type == "live")
        & Notification.notification_type.in_(["sms", "email"]))
        .order_by(Notification.created_at.desc(), Notification.id.desc()).limit(250))
    assert [row.id for row in query] == [row.id for row in expected]
