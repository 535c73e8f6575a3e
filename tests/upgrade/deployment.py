"""One install of the service, as an operator keeps it across an upgrade: its database (a SQLite file,
or a PostgreSQL database of its own on DATABASE_URL's server), instance directory, secrets, Redis
namespace and ports. Releases run on it one after the other, each from its own tree and venv, the
way an operator runs them: its release step, its CLI, its Procfile's processes."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import requests

from tests.conftest import _free_port
from tests.private_servers import Processes

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 90  # a loaded 2-core machine starts gunicorn and its app in a few seconds; allow far more


@dataclass(frozen=True)
class Tree:
    """Code that runs on an install: a release's tree and its venv's python, or the working tree."""
    name: str
    root: Path
    python: Path


CURRENT = Tree("current", ROOT, Path(sys.executable))


@dataclass
class Install:
    directory: Path
    database_url: str
    redis_url: str
    namespace: str = field(default_factory=lambda: f"upgrade-{uuid.uuid4().hex[:8]}")
    web_port: int = field(default_factory=_free_port)
    console_port: int = field(default_factory=_free_port)
    admin_client_secret: str = "upgrade-admin-client-secret-of-at-least-32-bytes"
    provider_webhook_token: str = "upgrade-provider-webhook-token"
    runs: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def console_url(self) -> str:
        return f"http://127.0.0.1:{self.console_port}"

    def env(self, **overrides: str) -> dict[str, str]:
        """What every process of every release gets: the same secrets and addresses, so an upgraded
        install keeps reading what the older release encrypted and linked."""
        metrics = self.directory / "worker-metrics"
        metrics.mkdir(exist_ok=True)
        return {**os.environ, "DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url,
                "QUEUE_NAMESPACE": self.namespace, "INSTANCE_DIR": str(self.directory / "instance"),
                "SECRET_KEY": "upgrade-secret-key", "ADMIN_CLIENT_SECRET": self.admin_client_secret,
                "PROVIDER_WEBHOOK_TOKEN": self.provider_webhook_token, "PORT": str(self.web_port),
                "BASE_URL": self.base_url, "CONSOLE_PORT": str(self.console_port), "ADMIN_URL": self.console_url,
                "CALLBACKS_ALLOW_HTTP_LOOPBACK": "1", "CALLBACK_MIN_BACKOFF_MS": "200",
                # Letters are batched and answered every second, and lost stages swept as often.
                "PRINT_BATCH_SECONDS": "1", "SWEEP_INTERVAL_SECONDS": "1", "WEB_CONCURRENCY": "1",
                "WEB_ACCESS_LOG": "", "dramatiq_prom_port": str(_free_port()), "dramatiq_prom_db": str(metrics),
                **overrides}

    def run(self, tree: Tree, *args: str, timeout: float = 300) -> str:
        """A command of `tree` (its python) on this install; its output, or a failure that shows it."""
        done = subprocess.run([str(tree.python), *args], cwd=tree.root, env=self.env(), capture_output=True,
                              text=True, timeout=timeout)
        assert done.returncode == 0, (f"{tree.name}: {' '.join(args)} exited {done.returncode}:\n"
                                      f"{done.stdout[-3000:]}\n{done.stderr[-5000:]}")
        return done.stdout

    def release_step(self, tree: Tree) -> str:
        """The Procfile's release process of `tree`."""
        return self.run(tree, "-m", "models.migrations")

    def cli(self, tree: Tree, *args: str) -> Any:
        """An operator command of `tree` (`flask --app app ...`), whose answer is JSON."""
        return json.loads(self.run(tree, "-m", "flask", "--app", "app", *args, timeout=120))

    @contextlib.contextmanager
    def running(self, tree: Tree, *, worker: bool = True, console: bool = True) -> Iterator[Processes]:
        """The Procfile's processes of `tree` on this install (web, worker, scheduler, console), each in
        a session of its own; every one stopped at the end, its whole process group."""
        self.runs += 1
        logs = self.directory / f"logs-{self.runs}-{tree.name}"
        logs.mkdir()
        processes = Processes(self.env(), self.web_port, logs, cwd=tree.root)
        python = str(tree.python)
        try:
            processes.start("web", python, "-m", "gunicorn", "app:app", "--bind", f"127.0.0.1:{self.web_port}",
                            "--no-control-socket")
            if worker:
                # One supervisor for every queue (the Procfile splits jobs off to a process of its own).
                processes.start("worker", python, "-m", "workers.supervise", "--processes", "1", "--threads", "8")
                processes.start("scheduler", python, "scheduler.py")
            if console:
                processes.start("console", python, "-m", "gunicorn", "console:app", "--bind",
                                f"127.0.0.1:{self.console_port}", "--no-control-socket")
            _wait_until_answers(processes, "web", f"{self.base_url}/_status")
            if console:
                _wait_until_answers(processes, "console", f"{self.console_url}/sign-in")
            yield processes
        except BaseException:
            # What the processes said goes with the failure (pytest shows a failed test's output): the
            # run's folder may be gone by the time anyone looks.
            for name in processes.running:
                print(f"--- {tree.name} {name}, the end of its log:\n{processes.log(name)[-4000:]}")
            raise
        finally:
            processes.stop_all()

    def forget_redis(self) -> None:
        client = redis.Redis.from_url(self.redis_url)
        for key in client.scan_iter(f"{self.namespace}:*", count=1000):
            client.delete(key)
        client.close()


def _wait_until_answers(processes: Processes, name: str, url: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            if requests.get(url, timeout=5).status_code == 200:
                return
        except requests.RequestException:
            pass
        exited = processes.running[name].poll()
        if exited is not None or time.monotonic() > deadline:
            raise AssertionError(f"{name} ({url}) did not answer 200 within {START_SECONDS} s"
                                 f"{f', it exited {exited}' if exited is not None else ''}:\n"
                                 f"{processes.log(name)[-5000:]}")
        time.sleep(0.2)
