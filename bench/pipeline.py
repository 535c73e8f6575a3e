"""Pipeline benchmark: notifications from accepted to delivered, with the workers the Procfile runs.

Three measurements, interleaved round by round on the same Redis (the load average is printed
before each round, the machine being shared):
- no-op Dramatiq: a Dramatiq actor that does nothing (bench/noop_actors.py), messages per second,
  with the Procfile's worker processes and threads;
- (R4) the pipeline with the simulated provider: dispatch, the simulator's receipts posted to the
  web process's webhook, the receipts applied; its share of no-op Dramatiq, each round's and the
  medians';
- R4's floor (bench/floor_actors.py) on the same workers: a message per notification and only its two
  status writes (`sending`, then `delivered`), the most R4 can be while each notification is a
  message of its own (`--no-floor` leaves it out);
- (R5) the pipeline through a real HTTP gateway (bench/gateway.py, a process of its own) that
  answers each send after --gateway-delay-ms and posts a receipt per message back to the webhook:
  sends per second per worker process, and the most sends the gateway held at once.
The workers run as the Procfile's `worker` line runs them (`python -m workers.supervise ...`, its
arguments read from the Procfile), the web process under gunicorn as the Procfile serves it. The
accepted sends are queued first, then the workers start; each rate is taken from the first message
taken to the last notification delivered, so worker start-up counts for none. CPU per notification
(worker and web process trees, from /proc, over the same span) is printed too: on a shared machine
it judges a change better than a rate does.

    python bench/pipeline.py [--count 2000] [--rounds 3] [--postgres postgresql://...] [--key-type live]
        [--gateway-delay-ms 50] [--receipt-batch 1] [--skip-sqlite] [--only r4|r5]
        [--worker-processes N] [--worker-threads N] [--together]

--worker-processes 1 measures what one worker process sends when it is not sharing the cores with
a second one (R5's "per worker process"); the Procfile's own line divides the machine's rate by its
processes, which on a 2-core machine also share the cores with the web process, the database,
Redis and the benchmark's gateway.
"""
from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import pipeline_runs  # noqa: E402
from bench.harness import ROOT, database, free_port, gunicorn, provision, remove_sends, service_env, vacuum  # noqa: E402
from bench.pipeline_report import cpu_text, summary  # noqa: E402
from bench.pipeline_runs import WORKER_ARGS, Run, override_workers, watch  # noqa: E402
from bench.proc import load_average, pid_of, tree_cpu_seconds  # noqa: E402
from core.tokens import create_token  # noqa: E402
from pipeline.infrastructure.providers.sms.pacing import MAX_IN_FLIGHT, MAX_PER_SECOND  # noqa: E402
from workers import registry  # noqa: E402


def measure_noop(redis_url: str, count: int) -> Run:
    env = service_env(Path(tempfile.mkdtemp()), REDIS_URL=redis_url,
                      QUEUE_NAMESPACE=f"bench-noop-{uuid.uuid4().hex[:6]}")
    return _drain("bench.noop_actors", "noop",
                  f"from bench.noop_actors import noop\nfor i in range({count}): noop.send(i)", env, count)


def measure_floor(redis_url: str, database_url: str | None, count: int) -> Run:
    """The R4 floor (bench/floor_actors.py): a message per notification and its two status writes."""
    env = service_env(Path(tempfile.mkdtemp(prefix="bench-floor-")), REDIS_URL=redis_url,
                      QUEUE_NAMESPACE=f"bench-floor-{uuid.uuid4().hex[:6]}",
                      **({"DATABASE_URL": database_url} if database_url else {}))
    made = provision(env, "live")
    if database_url:
        vacuum(env)
    try:
        return _drain("bench.floor_actors", "floor", "from bench.floor_actors import seed\n"
                      f"seed({count}, {made['service_id']!r}, {made['template_id']!r})", env, count)
    finally:
        remove_sends(env, made["service_id"])


def _drain(module: str, queue: str, send: str, env: dict[str, str], count: int) -> Run:
    """count messages sent by the code send, taken by module's actors on the pipeline's worker
    processes and threads (supervise runs our actors only), from the first taken to the last done."""
    subprocess.run([sys.executable, "-c", send], cwd=ROOT, env=env, check=True)
    client = redis.Redis.from_url(env["REDIS_URL"])
    workers = subprocess.Popen([sys.executable, "-m", "dramatiq", module, "--processes",
                                str(pipeline_runs.PROCESSES), "--threads", str(pipeline_runs.THREADS)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # An acked message leaves the queue's hash: what is gone from it is done.
        waiting = f"{env['QUEUE_NAMESPACE']}:{queue}.msgs"
        return watch(lambda: client.hlen(waiting) < count, lambda: client.hlen(waiting) == 0, count,
                      lambda: {"worker": tree_cpu_seconds(workers.pid)})
    finally:
        workers.terminate()
        workers.wait(timeout=60)


def measure_pipeline(redis_url: str, database_url: str | None, count: int, key_type: str,
                     gateway: argparse.Namespace | None, together: bool = False) -> Run:
    instance = Path(tempfile.mkdtemp(prefix="bench-"))
    port, webhook_token = free_port(), uuid.uuid4().hex
    extra = {"DATABASE_URL": database_url} if database_url else {}
    gateway_process = None
    if gateway is not None:
        gateway_port = free_port()
        gateway_process = subprocess.Popen(
            [sys.executable, "bench/gateway.py", "--port", str(gateway_port), "--webhook-token", webhook_token,
             "--delay-ms", str(gateway.gateway_delay_ms), "--receipt-batch", str(gateway.receipt_batch)], cwd=ROOT)
        gateway_url = f"http://127.0.0.1:{gateway_port}"
        # The benchmark's gateway listens on this machine over plain HTTP, which the service refuses
        # for a gateway unless loopback is allowed (pipeline/infrastructure/outbound.py). Its pace is
        # set as high as the service takes: R5 measures what a worker process sends, not the pace a
        # gateway of unknown limits gets by default (50 a second, pipeline/infrastructure/providers/sms/pacing.py).
        extra.update(SMS_GATEWAYS=json.dumps([{"name": "bench", "type": "json", "url": gateway_url,
                                               "max_per_second": MAX_PER_SECOND, "max_in_flight": MAX_IN_FLIGHT}]),
                     CALLBACKS_ALLOW_HTTP_LOOPBACK="1")
        _wait_for(f"{gateway_url}/stats")
    # A namespace per run: circuit breaker and outboxes start empty.
    env = service_env(instance, REDIS_URL=redis_url, BASE_URL=f"http://127.0.0.1:{port}",
                      PROVIDER_WEBHOOK_TOKEN=webhook_token, QUEUE_NAMESPACE=f"bench-{uuid.uuid4().hex[:8]}", **extra)
    try:
        run = _run_pipeline(env, instance, port, redis_url, database_url, count, key_type,
                            gateway_process and gateway_url, gateway_process and gateway_process.pid, together)
        run.gateway_delay_ms = gateway.gateway_delay_ms if gateway is not None else 0.0
        return run
    finally:
        if gateway_process is not None:
            gateway_process.terminate()
            gateway_process.wait(timeout=30)


def _wait_for(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            requests.get(url, timeout=5)
            return
        except requests.RequestException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _run_pipeline(env: dict, instance: Path, port: int, redis_url: str, database_url: str | None, count: int,
                  key_type: str, gateway_url: str | None, gateway_pid: int | None, together: bool) -> Run:
    made = provision(env, key_type)
    if database_url:
        _forget_gateways(env)
    with gunicorn("app:app", env, port, "/_status") as url:
        web_pid = pid_of(f"127.0.0.1:{port}")
        accept_all = _accepter(url, made, count)
        since = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        if not together:
            accept_all()
        db, param = database(env)
        queues = redis.Redis.from_url(redis_url)
        service_key = uuid.UUID(made["service_id"]).hex  # as peewee writes a uuid, which both databases take
        # (status, created_at) index probes that stop at the first row found.
        probe = ("SELECT 1 FROM notification WHERE status IN ({}) AND created_at >= {p} AND service_id = {p} LIMIT 1")

        def found(statuses: str) -> bool:
            return db.execute_sql(probe.format(statuses, p=param), (since, service_key)).fetchone() is not None

        # Accepted test-key sends wait in the simulated gateway's outbox for its first flush; live
        # sends in messages on send-sms, those recorded together sharing one (workers/sending.py):
        # the run starts when the first of the messages there before the workers start is taken.
        namespace = env["QUEUE_NAMESPACE"]
        if key_type == "test":
            waiting = lambda: queues.llen(f"{namespace}:simulated-sends:simulated")  # noqa: E731
        else:
            waiting = lambda: queues.hlen(f"{namespace}:send-sms.msgs")  # noqa: E731
        messages = waiting()
        log = open(instance / "workers.log", "w")
        workers = subprocess.Popen([sys.executable, "-m", "workers.supervise", *WORKER_ARGS], cwd=ROOT, env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            cpu = lambda: {"worker": tree_cpu_seconds(workers.pid), "web": tree_cpu_seconds(web_pid),  # noqa: E731
                           "gateway": tree_cpu_seconds(gateway_pid) if gateway_pid else 0.0}
            if together:
                run = _accept_while_delivering(accept_all, lambda: waiting() == 0 and not found(
                    "'created', 'sending', 'pending'"), count, cpu, queues, namespace)
            else:
                # The database is asked only once every send is out of Redis: probed all through the run,
                # its index scans competed with the pipeline's own statements for the cores.
                run = watch(lambda: waiting() < messages,
                             lambda: waiting() == 0 and not found("'created', 'sending', 'pending'"), count, cpu)
                run.messages = messages
        finally:
            workers.terminate()
            workers.wait(timeout=60)
            log.close()
        delivered = db.execute_sql(f"SELECT count(*) FROM notification WHERE service_id = {param}"
                                   " AND status = 'delivered'", (service_key,)).fetchone()[0]
        db.close()
        if delivered != count:
            sys.exit(f"only {delivered} of {count} notifications were delivered: the figures would be meaningless")
        remove_sends(env, made["service_id"])
        if gateway_url:
            run.most_in_flight = _sent_once(gateway_url, count)
    return run


def _forget_gateways(env: dict) -> None:
    """The database keeps the gateways it was configured with (pipeline/infrastructure/providers/sms/gateways.py):
    an earlier R5 run's would take the simulated provider's place."""
    db = database(env)[0]
    try:
        for table in ("sms_gateway_change", "sms_gateway"):
            db.execute_sql(f"DELETE FROM {table}")
    finally:
        db.close()
    vacuum(env)


def _accepter(url: str, made: dict, count: int) -> Callable[[], float]:
    """What sends count texts as a client does (a new token each), eight at a time; it answers the seconds taken."""
    body = {"phone_number": "0612345678", "template_id": made["template_id"], "personalisation": {"code": "1"}}
    session = requests.Session()

    def send(_: int) -> None:
        token = create_token(made["key"][-73:-37], made["key"][-36:], unique=True)
        response = session.post(f"{url}/v2/notifications/sms", json=body,
                                headers={"Authorization": f"Bearer {token}"}, timeout=30)
        response.raise_for_status()

    def accept_all() -> float:
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(send, range(count)))
        return time.monotonic() - started

    return accept_all


def _sent_once(gateway_url: str, count: int) -> int:
    """The most sends the gateway held at once, after checking that it took each notification exactly once."""
    stats = requests.get(f"{gateway_url}/stats", timeout=5).json()
    if stats["accepted"] != count:
        sys.exit(f"the gateway accepted {stats['accepted']} sends of {count} notifications: not exactly once")
    return stats["most_in_flight"]


def _accept_while_delivering(accept_all: Callable[[], float], all_done: Callable[[], bool], count: int,
                             cpu: Callable[[], dict[str, float]], queues: redis.Redis, namespace: str) -> Run:
    """--together: the sends accepted while the workers, started and registered first, deliver them (a
    deployment's steady state, where the accepts and the deliveries share the database and the cores).
    The rate is from the first send to the last notification delivered; accepted_rate, the API's."""
    deadline = time.monotonic() + 120
    while queues.hlen(registry.keys(namespace)["workers"]) < pipeline_runs.PROCESSES:
        if time.monotonic() > deadline:
            raise TimeoutError("the worker processes did not start")
        time.sleep(0.1)
    accepting: dict[str, float] = {}
    sender = threading.Thread(target=lambda: accepting.update(seconds=accept_all()))
    sender.start()
    try:
        run = watch(lambda: True, lambda: not sender.is_alive() and all_done(), count, cpu)
    finally:
        sender.join()
    run.accepted_rate = count / accepting["seconds"]
    return run


def main() -> None:
    args = _arguments()
    override_workers(args.worker_processes, args.worker_threads)
    databases = (([] if args.skip_sqlite else [("SQLite", None)])
                 + ([("PostgreSQL", args.postgres)] if args.postgres else []))
    rows = [row for row in ("r4", "r5") if args.only in (None, row)]
    noop: list[Run] = []
    runs: dict[tuple[str, str], list[Run]] = {(row, name): [] for row in rows for name, _ in databases}
    floors: dict[str, list[Run]] = {name: [] for name, _ in databases} if "r4" in rows and args.floor else {}
    for number in range(1, args.rounds + 1):
        print(f"round {number}: load average {load_average()}", flush=True)
        _round(args, databases, noop, floors, runs)
    print(f"\nmedians of {args.rounds} rounds, {args.count} {args.key_type}-key sms each"
          f"{', accepted while the workers delivered' if args.together else ''}, "
          f"workers: supervise {' '.join(WORKER_ARGS)}")
    summary(args, noop, floors, runs, pipeline_runs.PROCESSES)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--postgres", default=None)
    parser.add_argument("--skip-sqlite", action="store_true", help="PostgreSQL only (with --postgres)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--key-type", choices=["test", "live"], default="live",
                        help="live (R4, R5): a message, a claim and a provider call per send, as real sends take")
    parser.add_argument("--only", choices=["r4", "r5"], help="one row only (R4 keeps its no-op baseline)")
    parser.add_argument("--gateway-delay-ms", type=float, default=50, help="the HTTP gateway's latency (R5)")
    parser.add_argument("--receipt-batch", type=int, default=1, help="receipts per webhook request from the gateway")
    parser.add_argument("--worker-processes", type=int, help="worker processes (default: the Procfile's)")
    parser.add_argument("--worker-threads", type=int, help="threads per worker process (default: the Procfile's)")
    parser.add_argument("--no-floor", dest="floor", action="store_false",
                        help="leave out R4's floor (bench/floor_actors.py)")
    parser.add_argument("--together", action="store_true",
                        help="accept the sends while the workers deliver them (the steady state), not before")
    return parser.parse_args()


def _round(args: argparse.Namespace, databases: list[tuple[str, str | None]], noop: list[Run],
           floors: dict[str, list[Run]], runs: dict[tuple[str, str], list[Run]]) -> None:
    """One round: the no-op baseline, the floors and each row on each database, each printed as taken."""
    rows = sorted({row for row, _ in runs})
    if "r4" in rows:
        noop.append(measure_noop(args.redis, args.count * 3))
        print(f"  no-op Dramatiq {noop[-1].rate:.0f} messages/s; CPU per message {cpu_text(noop[-1:])}", flush=True)
    for name, url in databases if floors else ():
        floors[name].append(measure_floor(args.redis, url, args.count))
        print(f"  R4 floor {name}: {floors[name][-1].rate:.0f} notifications/s, share of no-op "
              f"{floors[name][-1].rate / noop[-1].rate:.1%}; CPU per notification {cpu_text(floors[name][-1:])}",
              flush=True)
    for row in rows:
        for name, url in databases:
            run = measure_pipeline(args.redis, url, args.count, args.key_type, args if row == "r5" else None,
                                   args.together)
            runs[row, name].append(run)
            detail = (f"share of no-op {run.rate / noop[-1].rate:.1%}" if row == "r4" else
                      f"{run.rate / pipeline_runs.PROCESSES:.0f} per worker process, "
                      f"most in flight {run.most_in_flight}")
            if run.messages and args.key_type != "test":
                detail += f", {args.count / run.messages:.1f} sends per message"
            if run.accepted_rate:
                detail += f", accepted at {run.accepted_rate:.0f}/s meanwhile"
            print(f"  {row.upper()} {name}: {run.rate:.0f} notifications/s, {detail}; CPU per notification "
                  f"{cpu_text([run])}", flush=True)


if __name__ == "__main__":
    main()
