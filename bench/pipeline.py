"""Pipeline benchmark: notifications per second from accepted to delivered, against no-op Dramatiq.

Both run as the Procfile runs workers (`dramatiq --processes 2 --threads 8`) on the same Redis. The
messages are queued first, then the workers start; the rate is taken from the first message acked
(for the pipeline, the first batch taken from the simulated gateway's outbox, where accepted
test-key sends wait) to the last notification done, so worker start-up counts for neither. Test-key sms go through
every stage: dispatch to the simulated provider (a batch per statement), its receipts posted to the
web process (a batch per request), the receipts applied.

    python bench/pipeline.py [--count 2000] [--rounds 3] [--postgres postgresql://...] [--key-type live]
"""
from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from api.auth import create_token  # noqa: E402
from bench.harness import ROOT, free_port, gunicorn, interleaved, report, service_env  # noqa: E402

WORKERS = ["--processes", "2", "--threads", "8"]  # as in the Procfile


def _watch(first_taken: Callable[[], bool], all_done: Callable[[], bool], count: int, timeout: float = 600) -> float:
    """The rate from the first message acked to the last notification done, so worker start-up
    counts for neither side and work held back for a batch counts in full. The checks are cheap
    probes, polled often: counting the rows done every time loaded the database being measured."""
    deadline = time.monotonic() + timeout
    for done, interval in ((first_taken, 0.005), (all_done, 0.02)):
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError("the run did not finish")
            time.sleep(interval)
        if done is first_taken:
            started = time.monotonic()
    return count / (time.monotonic() - started)


def measure_noop(redis_url: str, count: int) -> float:
    namespace = f"bench-noop-{uuid.uuid4().hex[:6]}"
    env = service_env(Path(tempfile.mkdtemp()), REDIS_URL=redis_url, QUEUE_NAMESPACE=namespace)
    sender = subprocess.run(
        [sys.executable, "-c", f"from bench.noop_actors import noop\nfor i in range({count}): noop.send(i)"],
        cwd=ROOT, env=env, check=True,
    )
    assert sender.returncode == 0
    client = redis.Redis.from_url(redis_url)
    workers = subprocess.Popen([sys.executable, "-m", "dramatiq", "bench.noop_actors", *WORKERS], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # An acked message leaves the queue's hash: what is gone from it is done.
        waiting = f"{namespace}:noop.msgs"
        return _watch(lambda: client.hlen(waiting) < count, lambda: client.hlen(waiting) == 0, count)
    finally:
        workers.terminate()
        workers.wait(timeout=60)


def measure_pipeline(redis_url: str, database_url: str | None, count: int, key_type: str) -> float:
    instance = Path(tempfile.mkdtemp(prefix="bench-"))
    port = free_port()
    env = service_env(instance, REDIS_URL=redis_url, BASE_URL=f"http://127.0.0.1:{port}",
                      **({"DATABASE_URL": database_url} if database_url else {}))
    made = json.loads(subprocess.run([sys.executable, "bench/provision.py", key_type], cwd=ROOT, env=env,
                                     capture_output=True, text=True, check=True).stdout)
    body = {"phone_number": "0612345678", "template_id": made["template_id"], "personalisation": {"code": "1"}}
    with gunicorn("app:app", env, port, "/_status") as url:
        session = requests.Session()

        def send(_: int) -> None:
            token = create_token(made["key"][-73:-37], made["key"][-36:])
            response = session.post(f"{url}/v2/notifications/sms", json=body,
                                    headers={"Authorization": f"Bearer {token}"}, timeout=30)
            response.raise_for_status()

        since = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(send, range(count)))
        db, param = _database(env)
        queues = redis.Redis.from_url(redis_url)
        service_key = made["service_id"] if database_url else uuid.UUID(made["service_id"]).hex
        # (status, created_at) index probes that stop at the first row found.
        probe = ("SELECT 1 FROM notification WHERE status IN ({}) AND created_at >= {p} AND service_id = {p} LIMIT 1")

        def found(statuses: str) -> bool:
            return db.execute_sql(probe.format(statuses, p=param), (since, service_key)).fetchone() is not None

        log = open(instance / "workers.log", "w")
        workers = subprocess.Popen([sys.executable, "-m", "dramatiq", "workers", *WORKERS], cwd=ROOT, env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            # Accepted test-key sends wait in the simulated gateway's outbox for its first flush;
            # live sends each wait in a message on send-sms.
            namespace = env["QUEUE_NAMESPACE"]
            if key_type == "test":
                first_taken = lambda: queues.llen(f"{namespace}:simulated-sends:simulated") < count  # noqa: E731
            else:
                first_taken = lambda: queues.hlen(f"{namespace}:send-sms.msgs") < count  # noqa: E731
            rate = _watch(first_taken,
                          lambda: not found("'created', 'sending', 'pending'"), count)
        finally:
            workers.terminate()
            workers.wait(timeout=60)
            log.close()
        delivered = db.execute_sql(f"SELECT count(*) FROM notification WHERE service_id = {param}"
                                   " AND status = 'delivered'", (service_key,)).fetchone()[0]
        if delivered != count:
            sys.exit(f"only {delivered} of {count} notifications were delivered: the figures would be meaningless")
    return rate


def _database(env: dict):
    import os

    os.environ.update({k: env[k] for k in ("INSTANCE_DIR",) if k in env})
    from models.db import connect_url

    db = connect_url(env.get("DATABASE_URL") or f"sqlite:///{env['INSTANCE_DIR']}/notify.db")
    db.connect()
    return db, db.param


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--postgres", default=None)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--key-type", choices=["test", "live"], default="test",
                        help="live: one message, claim and simulated provider call per send, as real sends take")
    args = parser.parse_args()
    runs = [("SQLite", None)] + ([("PostgreSQL", args.postgres)] if args.postgres else [])
    noop, rates = interleaved(args.rounds, runs, lambda: measure_noop(args.redis, args.count * 3),
                              lambda name, url: measure_pipeline(args.redis, url, args.count, args.key_type))
    report("no-op Dramatiq, messages/s", noop, f"pipeline ({args.key_type} key)", rates,
           "notifications/s accepted->delivered")

if __name__ == "__main__":
    main()
