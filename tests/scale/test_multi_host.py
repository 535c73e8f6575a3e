"""Scaling out, proven on one machine: hosts are network namespaces on a bridge.

PostgreSQL and Redis on one host, `web` on two, `worker` on two, `scheduler` on one, each started
from the Procfile's command with nothing but environment variables. Texts sent through the official
Python client to both web hosts all reach `delivered`; one worker host is killed mid-load (every
process at once): nothing is lost and nothing is recorded as sent twice, and the dashboard's data
shows both worker hosts, then one.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import psycopg2
import pytest
from notifications_python_client.notifications import NotificationsAPIClient
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from tests.scale.netns import Host, Network, available

ROOT = Path(__file__).resolve().parents[2]
PG_BIN = Path("/usr/lib/postgresql/15/bin")
SENDS = 80
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"  # runuser, ip and the servers

pytestmark = pytest.mark.skipif(bool(available()) or not (PG_BIN / "postgres").exists()
                                or not shutil.which("redis-server"),
                                reason=available() or "needs PostgreSQL 15 and redis-server installed")


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if ": " in line)


def start_postgres(host: Host, workdir: Path) -> str:
    data = workdir / "pg"
    data.mkdir()
    shutil.chown(workdir, "postgres")
    shutil.chown(data, "postgres")
    subprocess.run(["runuser", "-u", "postgres", "--", str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres",
                    "--auth=trust"], check=True, capture_output=True)
    with open(data / "pg_hba.conf", "a") as hba:
        hba.write(f"host all all {host.address.rsplit('.', 1)[0]}.0/24 trust\n")
    host.start(["runuser", "-u", "postgres", "--", str(PG_BIN / "postgres"), "-D", str(data),
                "-c", f"listen_addresses={host.address}", "-c", f"unix_socket_directories={data}",
                "-c", "fsync=off", "-c", "max_connections=300"], env={"PATH": SYSTEM_PATH}, cwd=str(workdir),
               log=str(workdir / "postgres.log"))

    def accepts() -> bool:
        psycopg2.connect(host=host.address, user="postgres", dbname="postgres").close()
        return True

    Network.wait_until(accepts, 30, "PostgreSQL")
    admin = psycopg2.connect(host=host.address, user="postgres", dbname="postgres")
    admin.autocommit = True
    admin.cursor().execute("CREATE DATABASE notify")
    admin.close()
    return f"postgresql://postgres@{host.address}:5432/notify"


def start_redis(host: Host, workdir: Path) -> str:
    host.start(["redis-server", "--bind", host.address, "--port", "6379", "--save", "", "--appendonly", "no",
                "--protected-mode", "no"], env={"PATH": SYSTEM_PATH}, cwd=str(workdir),
               log=str(workdir / "redis.log"))
    import redis

    url = f"redis://{host.address}:6379/0"
    Network.wait_until(lambda: redis.Redis.from_url(url).ping(), 15, "Redis")
    return url


def host_env(common: dict[str, str], host: Host, workdir: Path) -> dict[str, str]:
    instance = workdir / host.name
    instance.mkdir(exist_ok=True)
    metrics = instance / "metrics"
    metrics.mkdir(exist_ok=True)
    return {**common, "INSTANCE_DIR": str(instance), "PROMETHEUS_MULTIPROC_DIR": str(metrics),
            "dramatiq_prom_db": str(metrics)}


def provision(web: Host, env: dict[str, str]) -> tuple[str, str]:
    def cli(*args: str) -> dict:
        return json.loads(web.run(["flask", "--app", "app", *args], env=env, cwd=str(ROOT)))

    service = cli("create-service", "--name", "Scale-out", "--live")
    service_id = service.get("data", service)["id"]
    key = cli("create-api-key", "--service-id", service_id, "--name", "load", "--key-type", "live")
    template = cli("create-template", "--service-id", service_id, "--type", "sms", "--name", "t",
                   "--body", "Hi ((n))")
    return key.get("data", key)["key"], template.get("data", template)["id"]


def dashboard_workers(host: Host, env: dict[str, str]) -> list[dict]:
    """The dashboard's data function, run on a host as the console there would."""
    script = ("import json; from workers.queue_stats import worker_processes; "
              "print(json.dumps([{'address': w.address, 'pid': w.pid, 'alive': w.alive, 'queues': w.queues} "
              "for w in worker_processes()]))")
    return json.loads(host.run([sys.executable, "-c", script], env=env, cwd=str(ROOT)).strip().splitlines()[-1])


def counted(metric_dirs: list[Path], name: str, **labels: str) -> float:
    """A counter summed over every process of every host, read from their multiprocess files (a
    killed host's files outlive it)."""
    total = 0.0
    for path in metric_dirs:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(path))
        for family in registry.collect():
            total += sum(s.value for s in family.samples
                         if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))
    return total


def test_processes_on_several_hosts_deliver_everything_once_when_a_worker_host_dies():
    commands = procfile()
    network = Network()
    workdir = Path(tempfile.mkdtemp(prefix="notify-hosts-"))
    try:
        db, web1, web2, worker1, worker2, scheduler = (network.add_host(label) for label in
                                                       ("db", "web1", "web2", "wk1", "wk2", "sch"))
        common = {
            "PATH": f"{Path(sys.executable).parent}:{SYSTEM_PATH}", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1",
            "DATABASE_URL": start_postgres(db, workdir), "REDIS_URL": start_redis(db, workdir),
            "SECRET_KEY": "multi-host-secret-key", "ADMIN_CLIENT_SECRET": "multi-host-admin-secret-of-32-bytes!!",
            "PROVIDER_WEBHOOK_TOKEN": "multi-host-webhook-token", "PORT": "6011", "WEB_CONCURRENCY": "1",
            "BASE_URL": f"http://{web1.address}:6011",  # where the simulated provider posts its receipts
            "QUEUE_HEARTBEAT_TIMEOUT_MS": "3000", "QUEUE_MAINTENANCE_CHANCE": "100000", "CACHE_TTL_SECONDS": "0",
        }
        envs = {host.name: host_env(common, host, workdir) for host in (web1, web2, worker1, worker2, scheduler)}
        web1.run(["sh", "-c", commands["release"]], env=envs[web1.name], cwd=str(ROOT))
        for host, role in ((web1, "web"), (web2, "web"), (worker1, "worker"), (worker2, "worker"),
                           (scheduler, "scheduler")):
            host.start(["sh", "-c", f"exec {commands[role]}"], env=envs[host.name], cwd=str(ROOT),
                       log=str(workdir / f"{host.name}.log"))
        clients = []
        key, template_id = provision(web1, envs[web1.name])
        for web in (web1, web2):
            import requests

            Network.wait_until(lambda web=web: requests.get(f"http://{web.address}:6011/_live", timeout=2).ok,
                               60, f"web on {web.address}")
            clients.append(NotificationsAPIClient(key, base_url=f"http://{web.address}:6011"))
        seen = Network.wait_until(
            lambda: len({w["address"] for w in dashboard_workers(web1, envs[web1.name]) if w["alive"]}) == 2
            and dashboard_workers(web1, envs[web1.name]), 60, "both worker hosts on the dashboard")
        assert {w["address"] for w in seen if w["alive"]} == {worker1.address, worker2.address}

        ids: list[str] = []
        lock = threading.Lock()

        def send(client: NotificationsAPIClient, count: int) -> None:
            for n in range(count):
                response = client.send_sms_notification("0612345678", template_id, {"n": n})
                with lock:
                    ids.append(response["id"])

        senders = [threading.Thread(target=send, args=(client, SENDS // 2)) for client in clients]
        for sender in senders:
            sender.start()
        conn = psycopg2.connect(common["DATABASE_URL"])
        conn.autocommit = True

        def delivered() -> int:
            with conn.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM notification WHERE status = 'delivered'")
                return cursor.fetchone()[0]

        Network.wait_until(lambda: delivered() >= SENDS // 4, 120, "a quarter delivered")
        worker1.kill()  # mid-load: the senders are still sending
        for sender in senders:
            sender.join(timeout=120)
        assert len(ids) == SENDS

        try:
            Network.wait_until(lambda: delivered() == SENDS, 120, "every notification delivered")
        except AssertionError as missing:
            with conn.cursor() as cursor:
                cursor.execute("SELECT status, dispatch_started_at IS NOT NULL, count(*) FROM notification"
                               " GROUP BY 1, 2")
                raise AssertionError(f"{missing}: (status, claimed, count) {cursor.fetchall()}") from None
        with conn.cursor() as cursor:
            cursor.execute("SELECT status, count(*) FROM notification GROUP BY status")
            assert dict(cursor.fetchall()) == {"delivered": SENDS}
            cursor.execute("SELECT count(DISTINCT id) FROM notification WHERE id::text = ANY(%s)", (ids,))
            assert cursor.fetchone()[0] == SENDS
        # Every process's own count of status changes, the killed host's included: no notification
        # was recorded as sent or delivered twice, however often its message came. A thread killed
        # between a transition's commit and its count loses that count (metrics are not part of the
        # transaction), so the killed host may count up to one short per worker thread, never over.
        metric_dirs = [Path(envs[h.name]["PROMETHEUS_MULTIPROC_DIR"]) for h in (web1, web2, worker1, worker2)]
        worker_line = commands["worker"].split()
        killed_threads = (int(worker_line[worker_line.index("--processes") + 1])
                          * int(worker_line[worker_line.index("--threads") + 1]))
        for status in ("sending", "delivered"):
            total = counted(metric_dirs, "notify_status_transitions_total", channel="sms", status=status)
            assert SENDS - killed_threads <= total <= SENDS, (status, total)
        assert counted(metric_dirs, "notify_notifications_accepted_total", channel="sms") == SENDS

        alive = Network.wait_until(
            lambda: (a := {w["address"] for w in dashboard_workers(web2, envs[web2.name]) if w["alive"]})
            == {worker2.address} and a, 60, "the dashboard showing one worker host")
        assert alive == {worker2.address}
        conn.close()
    finally:
        network.close()
        logs = {p.name: p.read_text(errors="replace")[-3000:] for p in workdir.glob("*.log")}
        shutil.rmtree(workdir, ignore_errors=True)
        if sys.exc_info()[0] is not None:
            print(json.dumps(logs, indent=1))
