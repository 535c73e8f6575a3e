"""Test set-up: real SQLite or PostgreSQL (DATABASE_URL), real Redis (REDIS_URL, else embedded).

The environment is fixed before the app is built, because settings, the database handle and the
Dramatiq broker are process-wide, as they are in the web and worker processes; the web app's factory
builds them (workers.wire), as it does in the web process.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import socket
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def unreachable_outbox():
    """An outbox on a port nothing listens on: Redis refuses it, as in an outage."""
    import redis

    from pipeline.infrastructure.outbox import Outbox

    return Outbox(redis.Redis(host="127.0.0.1", port=_free_port()), "unreachable")


_instance = tempfile.mkdtemp(prefix="notify-tests-")
_port = _free_port()  # the live server's port, known up front so BASE_URL (webhooks, links) points at it
os.environ["BASE_URL"] = f"http://127.0.0.1:{_port}"
os.environ["PROVIDER_MAX_RETRIES"] = "3"
os.environ["CACHE_TTL_SECONDS"] = "0"  # tests change rows directly and expect to see it at once
# Messages of a killed worker come back after 3 s instead of a minute (tests kill workers).
os.environ["QUEUE_HEARTBEAT_TIMEOUT_MS"] = "3000"
os.environ["QUEUE_MAINTENANCE_CHANCE"] = "100000"
os.environ["PROVIDER_MIN_BACKOFF_MS"] = "50"
os.environ["PROVIDER_MAX_BACKOFF_MS"] = "200"
# Retries due in 50-200 ms sit on delay queues: polled as often as the send path, they run when due.
os.environ["QUEUE_QUIET_POLL_MS"] = "100"
os.environ["CALLBACKS_ALLOW_HTTP_LOOPBACK"] = "1"  # the tests' callback receivers are plain http on 127.0.0.1
os.environ["CALLBACK_MIN_BACKOFF_MS"] = "50"
os.environ.pop("SMTP_URL", None)
os.environ.pop("SMS_GATEWAY_URL", None)
os.environ["INSTANCE_DIR"] = _instance
os.environ.setdefault("DATABASE_URL", f"sqlite:///{_instance}/test.db")
os.environ["QUEUE_NAMESPACE"] = f"notify-test-{uuid.uuid4().hex[:8]}"
os.environ["ADMIN_CLIENT_SECRET"] = "test-admin-client-secret-of-at-least-32-bytes"
os.environ["SECRET_KEY"] = "test-secret-key"
os.environ.setdefault("ADMIN_URL", "https://admin.example.nl")

from app import create_app  # noqa: E402
from config import get_settings  # noqa: E402
from models.db import database, is_postgres  # noqa: E402
from models.migrations import migrate  # noqa: E402
from workers import registry  # noqa: E402
from workers.broker import current_broker, ops_redis  # noqa: E402

# Built as the web process builds it: the factory wires the database, the broker and the listeners.
flask_app = create_app()
broker = current_broker()

if not os.environ.get("REDIS_URL"):
    import embedded_redis

    # Importing the app started the embedded Redis. The session's teardown stops it; this, when the
    # process ends without one (--collect-only, a collection error, a run interrupted during set-up).
    atexit.register(embedded_redis.stop, Path(_instance))


def _all_tables() -> list[str]:
    return [t for t in database.get_tables() if t != "schema_version"]


@pytest.fixture(scope="session", autouse=True)
def _schema() -> Iterator[None]:
    with database.connection_context():
        # Start every run from an empty schema so earlier runs against a shared database count for nothing.
        for table in database.get_tables():
            database.execute_sql(f'DROP TABLE IF EXISTS "{table}"' + (" CASCADE" if is_postgres() else ""))
    migrate()
    yield
    broker.flush_all()
    broker.close()
    if not os.environ.get("REDIS_URL"):
        embedded_redis.stop(Path(_instance))


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    yield
    broker.flush_all()
    # The outboxes outlive queue messages: a flush purged above must not leave the next test's
    # receipts waiting for its flag to expire.
    for pattern in ("simulated-*", "receipts-outbox*"):
        for key in ops_redis().scan_iter(f"{get_settings().queue_namespace}:{pattern}"):
            ops_redis().delete(key)
    # SMS gateways' circuits and slow-receipt verdicts (workers/sms_rotation.py) are per test too.
    for key in ops_redis().scan_iter(f"{get_settings().queue_namespace}:sms-*"):
        ops_redis().delete(key)
    # Worker registry's per-minute counts (workers/registry.py): one test's failed sends must not
    # count in the next test's queue figures.
    for key in ops_redis().scan_iter(f"{get_settings().queue_namespace}:ops:stats:*"):
        ops_redis().delete(key)
    # Nor may a worker process a test killed count as live in the next test's.
    ops_redis().delete(registry.keys(get_settings().queue_namespace)["workers"])
    with database.connection_context():
        tables = _all_tables()
        if is_postgres():
            database.execute_sql("TRUNCATE " + ", ".join(f'"{t}"' for t in tables) + " CASCADE")
        else:
            database.execute_sql("PRAGMA foreign_keys = OFF")
            # The held counts' journal last: deleting notifications writes to it (their triggers).
            for table in sorted(tables, key=lambda name: name == "held_count_change"):
                database.execute_sql(f'DELETE FROM "{table}"')
            database.execute_sql("PRAGMA foreign_keys = ON")
        # The rate card's default prices, as the migration seeds them (the truncation above took them).
        from tests.factories import seed_default_rates

        seed_default_rates()


@pytest.fixture(autouse=True)
def _connection() -> Iterator[None]:
    database.connect(reuse_if_open=True)
    yield


@pytest.fixture
def service():
    """A live service with email, sms, letter and international sms permissions."""
    from tests.factories import create_service

    return create_service()


@pytest.fixture
def key(service) -> str:
    """A live API key of `service`, as the full key string the clients take."""
    from tests.factories import create_key

    return create_key(service=service)


@pytest.fixture(scope="session")
def app():
    return flask_app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def live_server(app) -> Iterator[str]:
    """The app on a real socket, for the official clients."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", _port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@contextlib.contextmanager
def running_worker() -> Iterator[object]:
    """A real Dramatiq worker on the real Redis broker, in this process."""
    from dramatiq import Worker

    running = Worker(broker, worker_threads=4, worker_timeout=50)
    before = list(broker.middleware)
    running.start()
    added = [m for m in broker.middleware if not any(m is known for known in before)]
    try:
        yield running
    finally:
        running.stop()
        # A Worker registers a middleware on the broker and never removes it; one test's stopped
        # worker must not hear the next test's messages.
        broker.middleware[:] = [m for m in broker.middleware if not any(m is new for new in added)]


@pytest.fixture
def worker(live_server) -> Iterator[object]:
    """A worker, with the API listening for the webhooks the pipeline posts to."""
    with running_worker() as running:
        yield running


@contextlib.contextmanager
def gunicorn_process(app: str, ready_path: str, *args: str) -> Iterator[tuple[str, object]]:
    """`app` served by gunicorn as the Procfile serves it (gunicorn.conf.py: gevent workers on
    PostgreSQL, threads on SQLite), on the tests' database and Redis, once ready_path answers 200:
    its address and its master process; args are more gunicorn options."""
    import subprocess
    import sys
    import time

    import requests

    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", app, "--bind", f"127.0.0.1:{port}", *args],
        cwd=Path(__file__).resolve().parent.parent, env={**os.environ, "WEB_ACCESS_LOG": ""},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(f"{url}{ready_path}", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"{app} did not answer within 30 s")
            time.sleep(0.1)
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextlib.contextmanager
def gunicorn_server(*args: str) -> Iterator[str]:
    """The API's web process under gunicorn (gunicorn_process): its address."""
    with gunicorn_process("app:app", "/_status", *args) as (url, _):
        yield url


def wait_for(predicate, timeout: float = 15.0, interval: float = 0.05):
    """Poll until predicate() is truthy; returns its value (fails the test on timeout)."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s")


def status_of(notification_id) -> str:
    from models.notification import Notification

    return Notification.get_by_id(notification_id).status


@pytest.fixture
def real_providers():
    """Point the service at a real SMTP server and a real HTTP SMS gateway for one test."""
    import dataclasses

    import config
    from tests.fake_gateway import FakeGateway
    from tests.smtp_server import SmtpServer

    with SmtpServer() as smtp, FakeGateway(token="gateway-token") as gateway:
        before = config.get_settings()
        config._settings = dataclasses.replace(
            before, smtp_url=smtp.url, sms_gateway_url=gateway.url, sms_gateway_token="gateway-token"
        )
        try:
            yield smtp, gateway
        finally:
            config._settings = before


@pytest.fixture(scope="session")
def playwright_session():
    """One Playwright for the whole run: its sync API cannot be started twice at once in one thread,
    so the console's browser tests and tests/look launch their browsers from this one."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture
def caching(monkeypatch):
    """The settings cache on (an hour's TTL) for this test, empty before and after it."""
    import dataclasses

    import config
    from models import cache

    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), cache_ttl_seconds=3600))
    cache.clear()
    yield
    cache.clear()
