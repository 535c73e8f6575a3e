"""Every read of the API and the console, the dashboard, the usage page and the rollup, at a table size, on
PostgreSQL: the milliseconds of database time each takes with one service holding all the rows (issue 45).

Each size and row order gets a database of its own (`<db>_bench_<rows>_<order>`, dropped afterwards),
filled by the scale test's SQL (tests/test_scale_query_plans.py) for one service, the rows stored in a
shuffled order of creation or oldest first, then VACUUM ANALYZEd as autovacuum leaves a table. Each read
runs once through the code with its statements caught (peewee's query hooks); those statements are then
run again, a warm-up and 5 timed rounds, and the median of their summed time is printed: one line per read.
--keep leaves the databases; --reuse measures the reads again on those a run kept (migrated to the current
steps first), without filling them again: a 10 million row fill takes half an hour. The rollup is timed
on a database it has not run on yet: its first run there is the one that counts.

    python bench/scale.py --postgres postgresql://postgres@127.0.0.1:5432/test_wire [--rows 1000000 10000000]
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROUNDS = 5
Reads = list[tuple[str, Callable[[], Any]]]


def _reads(service: Any, now: datetime.datetime, reference: str, cursors: dict[str, Any]) -> Reads:
    from core.dashboard import jobs_in_progress, latest_received_texts, recent_figures, upcoming
    from core.usage import monthly_usage
    from models.conversations import conversation
    from models.queries import NotificationFilters, notifications_page
    from pipeline.domain.statuses import FAILURES, FILTER_VALUES
    from pipeline.infrastructure.message_search import MessageSearch, count_matches, search_page

    def api(name: str, cursor: str | None = None, **filters: Any) -> tuple[str, Callable[[], Any]]:
        return name, lambda: notifications_page(service, "live", NotificationFilters(**filters), cursors.get(cursor))

    def console(name: str, cursor: str | None = None, **search: Any) -> tuple[str, Callable[[], Any]]:
        return name, lambda: search_page(service, MessageSearch(**search), cursors.get(cursor), limit=50)

    days_ago = now.date() - datetime.timedelta(days=2)
    return [
        api("api: first page"),
        api("api: next page", "next"),
        api("api: page six days back", "six days"),
        api("api: status=delivered", statuses=("delivered",)),
        api("api: status=delivered six days back", "six days", statuses=("delivered",)),
        api("api: status=created", statuses=("created",)),
        api("api: status=failed", statuses=FAILURES),
        api("api: status=pending-virus-check (none)", statuses=("pending-virus-check",)),
        api("api: status=accepted (letters)", letter_statuses=FILTER_VALUES["accepted"]),
        api("api: template_type=letter", notification_types=("letter",)),
        api("api: template_type=sms&status=technical-failure", statuses=("technical-failure",),
            notification_types=("sms",)),
        api("api: reference", reference=reference),
        api("api: reference&status=delivered", reference=reference, statuses=("delivered",)),
        api("api: include_jobs&status=temporary-failure", statuses=("temporary-failure",), include_jobs=True),
        console("console: all"),
        console("console: all, next page", "next"),
        console("console: letters", channels=("letter",)),
        console("console: failed", statuses=("failed",)),
        console("console: delivered six days back", "six days", statuses=("delivered",)),
        console("console: recipient", text="0612345678"),
        console("console: recipient, technical-failure", text="0612345678", statuses=("technical-failure",)),
        console("console: reference", text=reference),
        console("console: one day, sms", date_from=days_ago, date_to=days_ago, channels=("sms",)),
        console("console: test key, delivered", key_type="test", statuses=("delivered",)),
        ("console: report's count (up to 10,000)", lambda: count_matches(service, MessageSearch(), at_most=10_000)),
        ("console: conversation", lambda: conversation(service, "+31612345678", "+31612345678")),
        ("dashboard", lambda: (recent_figures(service.id, now), upcoming(service.id, now),
                               jobs_in_progress(service.id), latest_received_texts(service.id))),
        ("usage page", lambda: monthly_usage(service.id, now.year, now.month)),
    ]


def _caught(db: Any, run: Callable[[], Any]) -> list[tuple[str, tuple]]:
    seen: list[tuple[str, tuple]] = []

    def hook(event: Any) -> None:
        seen.append((event.sql, tuple(event.params or ())))

    db.query_hooks.append(hook)
    try:
        run()
    finally:
        db.query_hooks.remove(hook)
    return seen


def database_ms(db: Any, run: Callable[[], Any]) -> float:
    """The median over ROUNDS of the time the read's statements take, run again as the code ran them."""
    statements = _caught(db, run)
    cursor = db.connection().cursor()

    def once() -> float:
        started = time.perf_counter()
        for sql, params in statements:
            cursor.execute(sql, params)
            cursor.fetchall()
        return time.perf_counter() - started

    once()
    return statistics.median(once() for _ in range(ROUNDS)) * 1000


def _cursors(db: Any, service: Any, now: datetime.datetime) -> dict[str, Any]:
    from models.queries import NotificationFilters, notifications_page

    first = notifications_page(service, "live", NotificationFilters())
    six_days = db.execute_sql(
        "SELECT id FROM notification WHERE service_id = %s AND key_type = 'live' AND created_at < %s"
        " ORDER BY created_at DESC, id DESC LIMIT 1", (service.id, now - datetime.timedelta(days=6))).fetchone()[0]
    return {"next": first[-1].id, "six days": six_days}


def _without_indexes(db: Any, fill: Callable[[], None]) -> None:
    """The notification table filled, then its indexes (but the primary key) built again, as the
    migrations made them: PostgreSQL builds an index by sorting, far faster than 10 million inserts at
    random places of every index (a shuffled fill's)."""
    indexes = db.execute_sql("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'notification'"
                             " AND indexname <> 'notification_pkey'").fetchall()
    for name, _ in indexes:
        db.execute_sql(f'DROP INDEX "{name}"')
    fill()
    for _, definition in indexes:
        db.execute_sql(definition)


def measure(url: str, rows: int, order: str, *, keep: bool = False, reuse: bool = False) -> list[tuple[str, float]]:
    import psycopg2

    from models.daily_rollup import RolledUpDay
    from models.db import connect_url, utcnow
    from models.migrations import migrate
    from models.service import Service
    from pipeline.stages.daily_rollup import roll_up
    from tests.factories import create_service
    from tests.test_scale_query_plans import generate, using

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/')}_bench_{rows}_{order}"
    admin = psycopg2.connect(url)
    admin.autocommit = True
    if not reuse:
        admin.cursor().execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.cursor().execute(f'CREATE DATABASE "{name}"')
    db = connect_url(urlunsplit(parts._replace(path=f"/{name}")))
    results = []
    try:
        with using(db):
            migrate()
            if reuse:
                service = Service.get(Service.name == "bench")
                # The fill's moment: its newest row was made then (the dashboard's day and the cursors' ages).
                now = db.execute_sql("SELECT max(created_at) FROM notification").fetchone()[0]
                db.execute_sql("ANALYZE")
            else:
                service = create_service(name="bench")
                now = utcnow()
                started = time.perf_counter()
                _without_indexes(db, lambda: generate(db, [service], rows, now, time_ordered=order == "time"))
                db.execute_sql("VACUUM ANALYZE")
                print(f"{rows:>9} {order:>8}: generated in {time.perf_counter() - started:.0f} s", flush=True)
            reference = db.execute_sql("SELECT reference FROM notification WHERE key_type = 'live'"
                                       " AND reference IS NOT NULL LIMIT 1").fetchone()[0]
            for label, run in _reads(service, now, reference, _cursors(db, service, now)):
                results.append((label, database_ms(db, run)))
                print(f"{rows:>9} {order:>8}: {label}: {results[-1][1]:.1f} ms", flush=True)
            rolled_before = RolledUpDay.select().exists()
            for label in () if rolled_before else ("rollup (first run)", "rollup (nothing changed)"):
                started = time.perf_counter()
                roll_up(now=now)
                results.append((label, (time.perf_counter() - started) * 1000))
                print(f"{rows:>9} {order:>8}: {label}: {results[-1][1]:.1f} ms", flush=True)
    finally:
        db.close()
        if not keep:
            admin.cursor().execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--postgres", required=True, help="a PostgreSQL URL; databases are made next to it")
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--order", nargs="+", choices=("shuffled", "time"), default=["shuffled", "time"])
    parser.add_argument("--keep", action="store_true", help="leave the databases for a later --reuse")
    parser.add_argument("--reuse", action="store_true", help="measure the reads on databases a run kept")
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = args.postgres
    from config import get_settings
    from models.db import init_database
    from pipeline.infrastructure import throughput

    init_database(get_settings().database_url)
    throughput.install(throughput.build(get_settings().throughput))  # the rollup's and the dashboard's reads
    for rows in args.rows:
        for order in args.order:
            measure(args.postgres, rows, order, keep=args.keep or args.reuse, reuse=args.reuse)


if __name__ == "__main__":
    main()
