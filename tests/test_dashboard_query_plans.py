"""The dashboard's and the usage page's reads at scale on PostgreSQL: a million notifications (the shared
scale fixture of tests/test_scale_query_plans.py), closed days rolled up, and every statement the figures
run EXPLAINed as it runs. A closed day is never read from the notifications; today's are an index range.
"""
from __future__ import annotations

import datetime
import re
import time
from zoneinfo import ZoneInfo

from core.dashboard import first_day, jobs_in_progress, latest_received_texts, recent_figures, upcoming
from core.usage import monthly_usage
from models.daily_rollup import RolledUpDay
from models.service import DEFAULT_TIME_ZONE
from pipeline.daily_rollup import roll_up, roll_up_service
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


def test_the_rollup_reads_each_service_day_by_index_ranges_and_the_dashboard_reads_only_today(scale):
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
            text = plan(db, sql, params)
            if "ORDER BY" in sql:  # the service's first held row: the list index's first entry
                assert LIST_INDEX in text and not SEQ_SCAN.search(text), text
            else:
                assert_range_read(text, params[2], params[3])
        roll_up(now=now)  # every service

        with statements(db) as seen:
            started = time.monotonic()
            _dashboard(service, now)
            dashboard_seconds = time.monotonic() - started
    print(f"\nrollup of one service's 8 days: {rollup_seconds:.2f}s; dashboard and month's usage: "
          f"{dashboard_seconds:.3f}s")
    reads = notification_reads(seen)
    assert reads
    for sql, params in reads:
        text = plan(db, sql, params)
        assert not SEQ_SCAN.search(text), text
        if "scheduled_for" in sql:  # the sends to come: the `created` range of (status, created_at)
            assert "notification_status_created_at" in text, text
            continue
        # Today only, and the hours of the service's first day before a UTC midnight: the closed days come
        # from the rollup, whose tables are read by their own index.
        week_start = datetime.datetime.combine(first_day(now), datetime.time(), ZoneInfo(DEFAULT_TIME_ZONE))
        assert params[2] in (datetime.datetime.combine(today, datetime.time()),
                             week_start.astimezone(datetime.UTC).replace(tzinfo=None)), (sql, params)
        assert_range_read(text, params[2], params[3])
    assert dashboard_seconds < 2.0
