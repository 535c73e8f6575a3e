"""The dashboard's and the usage page's reads at scale on PostgreSQL: a million notifications (the shared
scale fixture of tests/test_scale_query_plans.py), closed days rolled up, and every statement the figures
run EXPLAINed as it runs. No day's figures are read from the notifications: today's are the counts kept as
they are written.
"""
from __future__ import annotations

import datetime
import re
import time
from zoneinfo import ZoneInfo

from core.dashboard import first_day, jobs_in_progress, latest_received_texts, recent_figures, upcoming
from core.usage import monthly_usage
from models.api_key import KEY_TYPES
from models.daily_rollup import RolledUpDay
from models.notification import KIND_INDEX, SCHEDULED_INDEX
from models.service import DEFAULT_TIME_ZONE
from pipeline.stages.daily_rollup import counted_from_rows, held_counts, roll_up, roll_up_service
from tests.test_scale_query_plans import (  # noqa: F401  (scale: the fixture)
    LIST_INDEX,
    notification_reads,
    plan,
    pytestmark,
    scale,
    statements,
    using,
)

SEQ_SCAN = re.compile(r"Seq Scan on (\w+)")


def assert_range_read(text: str, start: datetime.datetime, end: datetime.datetime) -> None:
    """No table scan: an index bounds the read to the service's rows created in [start, end) (the list
    index, or another that leads with service and created_at, as the recipient search's)."""
    assert not SEQ_SCAN.search(text), text
    assert re.search(rf"Index Cond: \(\(service_id = [^\n]*\(created_at >= '{start:%Y-%m-%d %H:%M:%S}'"
                     rf"[^\n]*\(created_at < '{end:%Y-%m-%d %H:%M:%S}'", text), text


def _dashboard(service, now) -> None:
    recent_figures(service.id, now)
    upcoming(service.id, now)
    jobs_in_progress(service.id)
    latest_received_texts(service.id)
    monthly_usage(service.id, now.year, now.month)


def test_the_rollup_and_the_dashboard_read_counts_not_notifications(scale):
    """The notifications are counted as they are written (pipeline/stages/held_counts.py): the rollup and the
    dashboard read no notification but the service's first one (its first day to roll up) and the sends
    it has scheduled (a partial index of those alone)."""
    db, now, service = scale["db"], scale["now"], scale["services"][3]
    today = now.date()
    with using(db):
        RolledUpDay.delete().execute()
        with statements(db) as seen:
            started = time.monotonic()
            written = roll_up_service(service.id, today)
            rollup_seconds = time.monotonic() - started
        # The rows span the last 7 days and 3 hours: 8 closed UTC days, or 7 after 03:00 UTC.
        first_rolled = (now - datetime.timedelta(days=7, hours=3)).date()
        assert written == (today - first_rolled).days
        for sql, params in notification_reads(seen):
            assert "ORDER BY" in sql and "LIMIT" in sql, sql  # the service's first row, per key type
            text = plan(db, sql, params)
            assert LIST_INDEX in text and not SEQ_SCAN.search(text), text
        # The counts are those of the rows (made by one INSERT of a million, counted by its trigger).
        tomorrow = today + datetime.timedelta(days=1)
        assert held_counts(service.id, first_rolled, tomorrow) == counted_from_rows(
            service.id, first_rolled, tomorrow, KEY_TYPES)
        roll_up(now=now)  # every service
        assert roll_up_service(service.id, today) == 0  # nothing changed since

        with statements(db) as seen:
            started = time.monotonic()
            _dashboard(service, now)
            dashboard_seconds = time.monotonic() - started
    print(f"\nrollup of one service's 8 days: {rollup_seconds:.3f}s; dashboard and month's usage: "
          f"{dashboard_seconds:.3f}s")
    reads = notification_reads(seen)
    assert reads
    for sql, params in reads:
        text = plan(db, sql, params)
        assert not SEQ_SCAN.search(text), text
        if "scheduled_for" in sql:  # the sends to come
            assert SCHEDULED_INDEX in text, text
            continue
        # The hours of the service's first day before a UTC midnight: the whole days come from the counts.
        # Those hours' rows are counted off the kind index, a range per channel and status (those of live
        # keys: the fixture has no team key's rows, whose empty range the planner may read off any index).
        week_start = datetime.datetime.combine(first_day(now), datetime.time(), ZoneInfo(DEFAULT_TIME_ZONE))
        start, midnight = [each for each in params if isinstance(each, datetime.datetime)]
        assert start == week_start.astimezone(datetime.UTC).replace(tzinfo=None), (sql, params)
        assert_range_read(text, start, midnight)
        if "live" in params:
            assert re.search(rf"(?:using|on) {KIND_INDEX}\b", text), text  # an index-only or a bitmap scan
    # What the figures read instead: a few rows per service, day and kind however many notifications
    # (20 services, 9 days, 3 channels, 2 key types, 6 statuses here), counts and journal together.
    with using(db):
        held = sum(db.execute_sql(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
                   for table in ("held_count", "held_count_change"))
    assert 0 < held <= 20 * 9 * 3 * 2 * 6
    assert dashboard_seconds < 2.0 and rollup_seconds < 2.0
