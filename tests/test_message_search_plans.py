"""The console's messages search on PostgreSQL at scale: every filter, the recipient search and the report's
count read index ranges, never the whole table (plans EXPLAINed as the code runs them, as in
tests/test_scale_query_plans.py)."""
from __future__ import annotations

import datetime

import pytest

from models.db import utcnow
from models.notification import CHANNEL_INDEX, FAILED_INDEX, RECIPIENT_INDEX
from pipeline.domain import statuses
from pipeline.infrastructure.message_search import KEY_TYPE_CHOICES, MessageSearch, count_matches, search_page
from tests.factories import create_notification, create_service
from tests.test_scale_query_plans import (
    FULL_SORT,
    URL,
    assert_index_only,
    generate,
    notification_reads,
    own_database,
    plan,
    statements,
    using,
)

pytestmark = pytest.mark.skipif(not URL.startswith(("postgres://", "postgresql://")),
                                reason="query plans at scale are PostgreSQL's")
ROWS = 300_000


@pytest.fixture(scope="module")
def scale():
    with own_database("search") as db:
        with using(db):
            services = [create_service(name=f"search {n}") for n in range(10)]
            generate(db, services, ROWS, utcnow())
            for n in range(20):
                create_notification(service=services[0], notification_type="email", to=f"Jan{n % 2}@Example.nl",
                                    normalised_to=f"Jan{n % 2}@Example.nl", status="delivered")
            db.execute_sql("ANALYZE")
        yield {"db": db, "service": services[0]}


def _plans(scale, run) -> list[str]:
    db = scale["db"]
    with using(db), statements(db) as seen:
        result = run()
    reads = notification_reads(seen)
    assert reads
    return result, [plan(db, sql, params) for sql, params in reads]


def test_a_recipients_messages_are_read_off_the_recipient_index(scale):
    found, plans = _plans(scale, lambda: search_page(scale["service"], MessageSearch(text="jan1@example.NL"), limit=50))
    assert len(found) == 10 and {n.to for n in found} == {"Jan1@Example.nl"}
    for text in plans:
        assert_index_only(text)
        assert RECIPIENT_INDEX in text, text


TODAY = datetime.date.today()


@pytest.mark.parametrize("search", [
    MessageSearch(),
    MessageSearch(channels=("letter",)),
    MessageSearch(statuses=("failed",)),
    MessageSearch(statuses=("received",), channels=("letter",)),
    MessageSearch(date_from=TODAY - datetime.timedelta(days=3), date_to=TODAY - datetime.timedelta(days=2)),
    MessageSearch(text="0612345678", channels=("sms",)),
    MessageSearch(text="ref-123"),
    MessageSearch(key_type="test", statuses=("delivered",)),
], ids=["all", "letters", "failed", "received letters", "two days", "a common recipient", "reference", "test key"])
def test_each_filter_and_the_next_page_read_index_ranges(scale, search):
    def first_two_pages():
        rows = search_page(scale["service"], search, limit=50)
        if rows:
            search_page(scale["service"], search, rows[-1].id, limit=50)
        return rows

    _rows, plans = _plans(scale, first_two_pages)
    for text in plans:
        assert_index_only(text)
        # No sort of the service's rows: the index gives the order, or what is sorted is a page at most
        # per key type read (live and team together are two index ranges, a page of each).
        pages = len(KEY_TYPE_CHOICES[search.key_type])
        assert all(int(rows) <= 50 * pages for rows in FULL_SORT.findall(text)), text


@pytest.mark.parametrize("search", [
    MessageSearch(channels=("letter",)),
    MessageSearch(date_from=TODAY - datetime.timedelta(days=2), date_to=TODAY - datetime.timedelta(days=2),
                  channels=("sms",)),
], ids=["letters", "one day, sms"])
def test_a_channel_alone_reads_a_range_per_key_type_off_the_channel_index(scale, search):
    """A channel without a status: one range of (service, key_type, notification_type, created_at, id) per
    key type, not one per status of the channel (13 ranges per key type took longer to plan than to read)."""
    rows, plans = _plans(scale, lambda: search_page(scale["service"], search, limit=50))
    assert len(rows) == 50 and {row.notification_type for row in rows} == set(search.channels)
    [text] = plans
    assert text.count(f"Index Scan Backward using {CHANNEL_INDEX} ") == 2 and "Merge Append" in text, text
    assert not FULL_SORT.search(text), text


@pytest.mark.parametrize("search, ranges", [
    (MessageSearch(statuses=("failed",)), 6),
    (MessageSearch(statuses=("failed",), channels=("email",)), 2),
], ids=["failed", "failed emails"])
def test_failed_reads_a_range_per_channel_and_key_type_off_the_failures_index(scale, search, ranges):
    """"failed" is five statuses: one range of the failed rows' index per channel and key type, not one
    per failure status too."""
    rows, plans = _plans(scale, lambda: search_page(scale["service"], search, limit=50))
    assert len(rows) == 50 and {row.status for row in rows} <= set(statuses.FAILURES)
    [text] = plans
    assert text.count(f"Index Scan Backward using {FAILED_INDEX} ") == ranges, text
    assert not FULL_SORT.search(text), text


def test_the_reports_count_stops_at_the_threshold_and_reads_an_index(scale):
    count, plans = _plans(scale, lambda: count_matches(scale["service"], MessageSearch(), at_most=10_000))
    assert count == 10_001
    for text in plans:
        assert_index_only(text)
