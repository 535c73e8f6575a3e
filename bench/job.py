"""Bulk job benchmark: rows per second from upload to all accepted, against the API accept path.

A job of 100,000 rows (a CSV of Dutch mobile numbers and a placeholder) goes from its upload to every
row accepted: the file read and every row checked (as the console's upload does), the job made and
started, and its rows made into notifications and their sends queued, a chunk at a time, by the jobs
worker as the Procfile runs it (`workers.supervise --queues jobs`). The clock starts when the file's
bytes are handed to the check and stops when the job is finished (its last row a notification whose
send is queued). No send worker runs, so the deliveries wait in Redis: only accepting is measured.

The baseline is bench/accept.py's measurement in the same run: live-key sms accepted per second by
the web process under wrk (each accepted send also counts the daily limit and queues a message).

    python bench/job.py [--rows 100000] [--rounds 1] [--postgres postgresql://...]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.accept import Side, measure  # noqa: E402
from bench.harness import ROOT, drop_queues, interleaved, provision, report, service_env  # noqa: E402


def run_job(service_id: str, template_id: str, rows: int) -> float:
    """In a process of the service's environment: upload, check, make and start the job; rows/s."""
    import workers
    from models.job import FINISHED, Job
    from models.service import Service
    from models.template import find_version
    from pipeline.stages.jobs.lifecycle import create_job
    from pipeline.stages.jobs.upload import check_upload
    from workers.jobs import enqueue_start

    workers.wire()  # the database and the broker the job's messages go to, as the web process has them
    data = ("phone number,code\r\n" + "".join(f"06{12000000 + n:08d},{n}\r\n" for n in range(rows))).encode()
    service = Service.get_by_id(service_id)
    version = find_version(service, template_id)
    started = time.monotonic()
    checked = check_upload(service, version, "bench.csv", data)
    assert not checked.problems, checked.problems[:3]
    job = create_job(service, version, "bench.csv", checked)
    enqueue_start(job.id, None)
    while Job.select(Job.status).where(Job.id == job.id).scalar() != FINISHED:
        time.sleep(0.05)
    return rows / (time.monotonic() - started)


def measure_job(database_url: str | None, redis_url: str, rows: int) -> float:
    instance = Path(tempfile.mkdtemp(prefix="bench-job-"))
    env = service_env(instance, REDIS_URL=redis_url, **({"DATABASE_URL": database_url} if database_url else {}))
    made = provision(env, "live")
    log = open(instance / "jobs-worker.log", "w")
    worker = subprocess.Popen([sys.executable, "-m", "workers.supervise", "--processes", "1", "--threads", "2",
                               "--queues", "jobs"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        out = subprocess.run([sys.executable, __file__, "--run-job", made["service_id"], made["template_id"],
                              str(rows)], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
        return float(out.strip().splitlines()[-1])
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds; medians are reported")
    parser.add_argument("--seconds", type=int, default=10, help="length of each accept-path run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--postgres", default=None, help="also measure on this PostgreSQL URL")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--run-job", nargs=3, metavar=("SERVICE_ID", "TEMPLATE_ID", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_job:
        print(run_job(args.run_job[0], args.run_job[1], int(args.run_job[2])))
        return
    runs = [("SQLite", None)] + ([("PostgreSQL", args.postgres)] if args.postgres else [])
    for name, url in runs:
        def accept(url: str | None = url) -> float:
            """accept.py's R1 measurement: the API at the Procfile's WEB_CONCURRENCY, a live key."""
            env = service_env(Path(tempfile.mkdtemp(prefix="bench-")), REDIS_URL=args.redis,
                              **({"DATABASE_URL": url} if url else {}))
            load = argparse.Namespace(seconds=args.seconds, warmup=2, connections=args.connections)
            try:
                return measure(Side("accept", 2, "service"), load, provision(env, "live"), env).rate
            finally:
                drop_queues(args.redis, env["QUEUE_NAMESPACE"])

        base, rates = interleaved(args.rounds, [(name, url)], accept,
                                  lambda _name, db: measure_job(db, args.redis, args.rows))
        report(f"API accept path ({name}, live key), sends/s", base, f"{args.rows:,}-row job", rates, "rows/s")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    main()
