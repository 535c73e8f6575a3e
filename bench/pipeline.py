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
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import ROOT, database, free_port, gunicorn, provision, remove_sends, service_env, vacuum  # noqa: E402
from bench.proc import load_average, machine_busy_seconds, pid_of, tree_cpu_seconds  # noqa: E402
from core.tokens import create_token  # noqa: E402
from pipeline.infrastructure.providers.sms.pacing import MAX_IN_FLIGHT, MAX_PER_SECOND  # noqa: E402
from workers import registry  # noqa: E402


def procfile_worker_args() -> list[str]:
    """The arguments of the Procfile's worker line: what is measured is what runs."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("worker:"):
            command = shlex.split(line.split(":", 1)[1])
            assert command[:3] == ["python", "-m", "workers.supervise"], command
            return command[3:]
    raise LookupError("the Procfile has no worker line")


WORKER_ARGS = procfile_worker_args()


def _worker_count(flag: str) -> int:
    return int(WORKER_ARGS[WORKER_ARGS.index(flag) + 1])


PROCESSES, THREADS = _worker_count("--processes"), _worker_count("--threads")


def override_workers(processes: int | None, threads: int | None) -> None:
    """The Procfile's worker line, with another count of processes or threads where given."""
    global PROCESSES, THREADS
    for flag, value in (("--processes", processes), ("--threads", threads)):
        if value:
            WORKER_ARGS[WORKER_ARGS.index(flag) + 1] = str(value)
    PROCESSES, THREADS = _worker_count("--processes"), _worker_count("--threads")


@dataclass
class Run:
    rate: float  # per second, over the whole run
    worker_cpu_ms: float = 0.0  # per notification
    web_cpu_ms: float = 0.0
    gateway_cpu_ms: float = 0.0
    machine_cpu_ms: float = 0.0  # every process of the machine, database and Redis included
    most_in_flight: int = 0
    gateway_delay_ms: float = 0.0  # R5: each thread waits this long per send
    messages: int = 0  # the queue messages that carried the notifications
    accepted_rate: float = 0.0  # --together: sends accepted per second while the workers delivered

    def ceiling(self) -> float:
        """The most notifications per second this machine's cores allow at this CPU per notification,
        the benchmark's gateway left out (a real one runs elsewhere)."""
        ours = self.machine_cpu_ms - self.gateway_cpu_ms
        return (os.cpu_count() or 1) * 1000 / ours if ours > 0 else 0.0

    def process_ceiling(self) -> float:
        """The most notifications per second one worker process can handle, however many cores the
        machine has: a core's worth of CPU (the GIL) over the workers' CPU per notification, and no
        more than its threads can have in flight at the gateway's latency."""
        by_cpu = 1000 / self.worker_cpu_ms if self.worker_cpu_ms else 0.0
        return min(by_cpu, THREADS * 1000 / self.gateway_delay_ms) if self.gateway_delay_ms else by_cpu


def _watch(first_taken: Callable[[], bool], all_done: Callable[[], bool], count: int,
           cpu: Callable[[], dict[str, float]] = dict, timeout: float = 900) -> Run:
    """From the first message taken to the last notification done, with the CPU seconds cpu() reads
    (keys: Run's *_cpu_ms fields without the suffix) and the machine's. The checks are cheap probes,
    polled often: counting the rows done every time loaded the database being measured."""
    def read() -> dict[str, float]:
        return {**cpu(), "machine": machine_busy_seconds()}

    deadline = time.monotonic() + timeout
    for done, interval in ((first_taken, 0.005), (all_done, 0.02)):
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError("the run did not finish")
            time.sleep(interval)
        if done is first_taken:
            started, cpu_before = time.monotonic(), read()
    used = {f"{name}_cpu_ms": (after - cpu_before[name]) * 1000 / count for name, after in read().items()}
    return Run(count / (time.monotonic() - started), **used)


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
    workers = subprocess.Popen([sys.executable, "-m", "dramatiq", module, "--processes", str(PROCESSES),
                                "--threads", str(THREADS)], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # An acked message leaves the queue's hash: what is gone from it is done.
        waiting = f"{env['QUEUE_NAMESPACE']}:{queue}.msgs"
        return _watch(lambda: client.hlen(waiting) < count, lambda: client.hlen(waiting) == 0, count,
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
        # The database keeps the gateways it was configured with (pipeline/infrastructure/providers/sms/gateways.py):
        # an earlier R5 run's would take the simulated provider's place.
        db = database(env)[0]
        try:
            for table in ("sms_gateway_change", "sms_gateway"):
                db.execute_sql(f"DELETE FROM {table}")
        finally:
            db.close()
        vacuum(env)
    body = {"phone_number": "0612345678", "template_id": made["template_id"], "personalisation": {"code": "1"}}
    with gunicorn("app:app", env, port, "/_status") as url:
        web_pid = pid_of(f"127.0.0.1:{port}")
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
                run = _watch(lambda: waiting() < messages,
                             lambda: waiting() == 0 and not found("'created', 'sending', 'pending'"), count, cpu)
                run.messages = messages
        finally:
            workers.terminate()
            workers.wait(timeout=60)
            log.close()
        delivered = db.execute_sql(f"SELECT count(*) FROM notification WHERE service_id = {param}"
                                   " AND status = 'delivered'", (service_key,)).fetchone()[0]
        if delivered != count:
            sys.exit(f"only {delivered} of {count} notifications were delivered: the figures would be meaningless")
        db.close()
        remove_sends(env, made["service_id"])
        if gateway_url:
            stats = requests.get(f"{gateway_url}/stats", timeout=5).json()
            if stats["accepted"] != count:
                sys.exit(f"the gateway accepted {stats['accepted']} sends of {count} notifications: not exactly once")
            run.most_in_flight = stats["most_in_flight"]
    return run


def _accept_while_delivering(accept_all: Callable[[], float], all_done: Callable[[], bool], count: int,
                             cpu: Callable[[], dict[str, float]], queues: redis.Redis, namespace: str) -> Run:
    """--together: the sends accepted while the workers, started and registered first, deliver them (a
    deployment's steady state, where the accepts and the deliveries share the database and the cores).
    The rate is from the first send to the last notification delivered; accepted_rate, the API's."""
    deadline = time.monotonic() + 120
    while queues.hlen(registry.keys(namespace)["workers"]) < PROCESSES:
        if time.monotonic() > deadline:
            raise TimeoutError("the worker processes did not start")
        time.sleep(0.1)
    accepting: dict[str, float] = {}
    sender = threading.Thread(target=lambda: accepting.update(seconds=accept_all()))
    sender.start()
    try:
        run = _watch(lambda: True, lambda: not sender.is_alive() and all_done(), count, cpu)
    finally:
        sender.join()
    run.accepted_rate = count / accepting["seconds"]
    return run


def _line(label: str, runs: list[Run], unit: str, extra: str = "") -> None:
    rates = ", ".join(f"{run.rate:.0f}" for run in runs)
    print(f"{label:36} {statistics.median(run.rate for run in runs):7.0f} {unit}  (rounds: {rates}); "
          f"CPU per notification: {_cpu(runs)}{extra}")


def _cpu(runs: list[Run]) -> str:
    """Medians of the CPU per notification, and the rate the machine's cores would allow at it."""
    def median(field: str) -> float:
        return statistics.median(getattr(run, field) for run in runs)

    parts = [f"workers {median('worker_cpu_ms'):.2f} ms", f"web {median('web_cpu_ms'):.2f} ms"]
    if median("gateway_cpu_ms"):
        parts.append(f"gateway {median('gateway_cpu_ms'):.2f} ms")
    parts.append(f"whole machine {median('machine_cpu_ms'):.2f} ms (its {os.cpu_count()} cores allow at most "
                 f"{statistics.median(run.ceiling() for run in runs):.0f}/s without the gateway; a worker process "
                 f"at most {statistics.median(run.process_ceiling() for run in runs):.0f}/s on a core of its own)")
    return ", ".join(parts)


def _shares(values: list[Run], noop: list[Run]) -> str:
    """The medians' ratio, and each round's against the no-op run measured beside it."""
    shares = [run.rate / base.rate for run, base in zip(values, noop, strict=True)]
    median = statistics.median(run.rate for run in values) / statistics.median(run.rate for run in noop)
    return (f"{median:.1%} (per round {', '.join(f'{share:.1%}' for share in shares)}; "
            f"median {statistics.median(shares):.1%})")


def main() -> None:
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
    args = parser.parse_args()
    override_workers(args.worker_processes, args.worker_threads)
    databases = (([] if args.skip_sqlite else [("SQLite", None)])
                 + ([("PostgreSQL", args.postgres)] if args.postgres else []))
    rows = [row for row in ("r4", "r5") if args.only in (None, row)]
    noop: list[Run] = []
    runs: dict[tuple[str, str], list[Run]] = {(row, name): [] for row in rows for name, _ in databases}
    floors: dict[str, list[Run]] = {name: [] for name, _ in databases} if "r4" in rows and args.floor else {}
    for number in range(1, args.rounds + 1):
        print(f"round {number}: load average {load_average()}", flush=True)
        if "r4" in rows:
            noop.append(measure_noop(args.redis, args.count * 3))
            print(f"  no-op Dramatiq {noop[-1].rate:.0f} messages/s; CPU per message {_cpu(noop[-1:])}", flush=True)
        for name, url in databases if floors else ():
            floors[name].append(measure_floor(args.redis, url, args.count))
            print(f"  R4 floor {name}: {floors[name][-1].rate:.0f} notifications/s, share of no-op "
                  f"{floors[name][-1].rate / noop[-1].rate:.1%}; CPU per notification {_cpu(floors[name][-1:])}",
                  flush=True)
        for row in rows:
            for name, url in databases:
                run = measure_pipeline(args.redis, url, args.count, args.key_type, args if row == "r5" else None,
                                       args.together)
                runs[row, name].append(run)
                detail = (f"share of no-op {run.rate / noop[-1].rate:.1%}" if row == "r4" else
                          f"{run.rate / PROCESSES:.0f} per worker process, most in flight {run.most_in_flight}")
                if run.messages and args.key_type != "test":
                    detail += f", {args.count / run.messages:.1f} sends per message"
                if run.accepted_rate:
                    detail += f", accepted at {run.accepted_rate:.0f}/s meanwhile"
                print(f"  {row.upper()} {name}: {run.rate:.0f} notifications/s, {detail}; CPU per notification "
                      f"{_cpu([run])}", flush=True)
    print(f"\nmedians of {args.rounds} rounds, {args.count} {args.key_type}-key sms each"
          f"{', accepted while the workers delivered' if args.together else ''}, "
          f"workers: supervise {' '.join(WORKER_ARGS)}")
    if noop:
        _line("no-op Dramatiq", noop, "messages/s")
    for name, values in floors.items():
        _line(f"R4 floor, {name}", values, "notifications/s", f"; share of no-op {_shares(values, noop)}"
              " (the most R4 can be with a queue message per notification)")
    for (row, name), values in runs.items():
        if row == "r4":
            _line(f"R4 simulated provider, {name}", values, "notifications/s",
                  f"; share of no-op {_shares(values, noop)}")
            if floors:
                paired = [run.rate / floor.rate for run, floor in zip(values, floors[name], strict=True)]
                print(f"{'':36} against its floor in the same round: per round "
                      f"{', '.join(f'{ratio:.2f}x' for ratio in paired)}; median {statistics.median(paired):.2f}x "
                      "(issue 34's target: at least 0.5x)")
        else:
            per_process = [run.rate / PROCESSES for run in values]
            _line(f"R5 HTTP gateway {args.gateway_delay_ms:.0f} ms, {name}", values, "notifications/s",
                  f"; per worker process {statistics.median(per_process):.0f}/s "
                  f"(per round {', '.join(f'{p:.0f}' for p in per_process)}; issue 34's target: at least 400/s "
                  f"with one worker process, --worker-processes 1), most in flight "
                  f"{max(run.most_in_flight for run in values)}")
        if args.together:
            accepted = [run.accepted_rate for run in values]
            print(f"{'':36} accepted meanwhile: median {statistics.median(accepted):.0f}/s "
                  f"(rounds: {', '.join(f'{rate:.0f}' for rate in accepted)})")


if __name__ == "__main__":
    main()
