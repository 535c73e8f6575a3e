"""Cost per row of the reference filter and the retention purge at two table sizes, on PostgreSQL.

Each size gets a database of its own (`<db>_bench_<rows>`, dropped afterwards), filled by the same
SQL as the scale test (tests/test_scale_query_plans.py). Reports the median time of the list query
with a reference filter (and the rows it returns), and the purge's time per row deleted.

    python bench/scale.py --postgres postgresql://postgres@127.0.0.1:5432/test_wire [--rows 10000 1000000]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def measure(url: str, rows: int) -> dict[str, float]:
    import psycopg2

    from models.db import connect_url, utcnow
    from models.migrations import migrate
    from models.queries import NotificationFilters, notifications_page_query
    from pipeline.retention import purge_notifications
    from tests.factories import create_service
    from tests.test_scale_query_plans import SERVICES, generate, using

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/')}_bench_{rows}"
    admin = psycopg2.connect(url)
    admin.autocommit = True
    admin.cursor().execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.cursor().execute(f'CREATE DATABASE "{name}"')
    db = connect_url(urlunsplit(parts._replace(path=f"/{name}")))
    try:
        with using(db):
            migrate()
            services = [create_service(name=f"bench {n}") for n in range(SERVICES)]
            now = utcnow()
            generate(db, services, rows, now)
            reference = db.execute_sql(
                "SELECT reference FROM notification WHERE service_id = %s AND key_type = 'live'"
                " AND reference IS NOT NULL LIMIT 1", (services[0].id,)).fetchone()[0]
            sql, params = notifications_page_query(services[0], "live", NotificationFilters(reference=reference)).sql()
            timings, found = [], 0
            for _ in range(200):
                start = time.perf_counter()
                found = len(db.execute_sql(sql, params).fetchall())
                timings.append(time.perf_counter() - start)
            start = time.perf_counter()
            purged = purge_notifications(now=now).notifications
            purge_seconds = time.perf_counter() - start
    finally:
        db.close()
        admin.cursor().execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
    return {"rows": rows, "reference_ms": statistics.median(timings) * 1000, "reference_rows": found,
            "purged": purged, "purge_s": purge_seconds, "purge_us_per_row": purge_seconds / max(purged, 1) * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", required=True, help="a PostgreSQL URL; databases are made next to it")
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 1_000_000])
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = args.postgres
    from config import get_settings
    from models.db import init_database

    init_database(get_settings().database_url)
    for rows in args.rows:
        result = measure(args.postgres, rows)
        print(f"{result['rows']:>9} rows: reference filter {result['reference_ms']:.2f} ms median "
              f"({result['reference_rows']} rows returned); purge {result['purged']} rows in "
              f"{result['purge_s']:.2f} s = {result['purge_us_per_row']:.0f} us/row")


if __name__ == "__main__":
    main()
