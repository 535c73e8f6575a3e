"""The benchmarks run, and their floors do the work they stand for.

A floor (bench/floor_app.py, bench/floor_actors.py) is the least an accept or a send can cost; its
figures say what a row of issue #18 can reach at most. A floor that skipped part of what the service
must do would claim less than any real send could, so these check that a floor's send is one the
service itself reads back and takes through its statuses.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from werkzeug.test import EnvironBuilder

from bench.harness import wrk_post
from config import get_settings, redis_url
from core.tokens import create_token
from models.notification import Notification
from tests.conftest import wait_for
from tests.factories import auth_headers, create_sample_template
from workers.broker import ops_redis

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def floor_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment the benchmarks give the floors: this run's database, Redis and a queue
    namespace of their own."""
    namespace = f"floor-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("REDIS_URL", redis_url(get_settings()))
    monkeypatch.setenv("QUEUE_NAMESPACE", namespace)
    yield {**os.environ, "PYTHONPATH": str(ROOT)}
    for key in ops_redis().scan_iter(f"{namespace}:*"):
        ops_redis().delete(key)


@pytest.fixture
def floor_app(floor_env, monkeypatch, service, key) -> Iterator[object]:
    template = create_sample_template(service=service, body="Your code is ((code))")
    for name, value in (("FLOOR_SERVICE_ID", str(service.id)), ("FLOOR_TEMPLATE_ID", str(template.id)),
                        ("FLOOR_TEMPLATE_BODY", template.versions[0].body), ("FLOOR_KEY_SECRET", key[-36:])):
        monkeypatch.setenv(name, value)
    sys.modules.pop("bench.floor_app", None)  # it reads its configuration when imported
    module = importlib.import_module("bench.floor_app")
    yield module
    from bench.floor_db import leader_connection

    leader_connection().close()
    leader_connection.cache_clear()
    sys.modules.pop("bench.floor_app", None)


def test_a_send_to_the_accept_floor_is_one_the_service_reads_back_and_queued(floor_app, client, service, key):
    environ = EnvironBuilder(method="POST", path="/v2/notifications/sms", headers=auth_headers(key), json={
        "phone_number": "06 12345678", "template_id": floor_app.TEMPLATE_ID, "personalisation": {"code": "123456"},
        "reference": "floor"}).get_environ()
    statuses: list[str] = []
    answer = json.loads(b"".join(floor_app.app(environ, lambda status, headers: statuses.append(status))))

    assert statuses == ["201 CREATED"]
    assert answer["content"] == {"body": "Your code is 123456", "from_number": "Notify"}
    read = client.get(f"/v2/notifications/{answer['id']}", headers=auth_headers(key))
    assert read.status_code == 200
    assert {name: read.json[name] for name in ("phone_number", "body", "status", "reference", "type")} == {
        "phone_number": "06 12345678", "body": "Your code is 123456", "status": "created", "reference": "floor",
        "type": "sms"}
    assert read.json["template"]["id"] == floor_app.TEMPLATE_ID
    queued = [json.loads(message) for message in ops_redis().lrange(floor_app.QUEUE, 0, -1)]
    assert [uuid.UUID(message["args"][0]) for message in queued] == [uuid.UUID(answer["id"])]


def test_the_accept_floor_refuses_a_number_that_is_not_one(floor_app, key):
    environ = EnvironBuilder(method="POST", path="/v2/notifications/sms", headers=auth_headers(key), json={
        "phone_number": "06 123", "template_id": floor_app.TEMPLATE_ID, "personalisation": {"code": "1"}}).get_environ()
    statuses: list[str] = []
    b"".join(floor_app.app(environ, lambda status, headers: statuses.append(status)))

    assert statuses == ["400 BAD REQUEST"]
    assert Notification.select().count() == 0


def test_the_accept_floor_verifies_every_token(floor_app, service, key):
    def send(token: str) -> list[str]:
        environ = EnvironBuilder(method="POST", path="/v2/notifications/sms", headers={
            "Authorization": f"Bearer {token}"}, json={"phone_number": "06 12345678",
                                                       "template_id": floor_app.TEMPLATE_ID}).get_environ()
        statuses: list[str] = []
        b"".join(floor_app.app(environ, lambda status, headers: statuses.append(status)))
        return statuses

    assert send(create_token(str(service.id), key[-36:], unique=True)) == ["201 CREATED"]
    assert send(create_token(str(service.id), "0f5f6a8e-4d1c-4b63-a1c8-2f2b7d4b9a10", unique=True)) == [
        "403 FORBIDDEN"]


@pytest.fixture
def recording_server() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server answering 201 to every POST: its address and the Authorization headers it got."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        # Connections kept open: what is checked is how the harness hands out tokens, whatever the
        # connection; with one per request, CI once saw a request arrive twice from wrk under load.
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

        def handle(self) -> None:
            with contextlib.suppress(ConnectionResetError):  # wrk resets its open connections when it ends
                super().handle()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v2/notifications/sms", seen
    server.shutdown()
    server.server_close()


@pytest.mark.skipif(not shutil.which("wrk"), reason="wrk is the benchmarks' load generator (apt-get install wrk)")
def test_the_benchmark_load_sends_each_token_once(recording_server):
    url, seen = recording_server
    tokens = [f"token-{number}" for number in range(200_000)]
    result = wrk_post(url, '{"a": 1}', {"Content-Type": "application/json"}, seconds=1, connections=4,
                      tokens=tokens)

    assert result["requests"] > 0 and result["non_2xx"] == 0
    assert len(seen) >= result["requests"]
    assert len(set(seen)) == len(seen)  # no token twice
    assert set(seen) <= {f"Bearer {token}" for token in tokens}


@pytest.mark.skipif(not shutil.which("wrk"), reason="wrk is the benchmarks' load generator (apt-get install wrk)")
def test_a_benchmark_load_with_too_few_tokens_stops_rather_than_repeat_one(recording_server):
    url, _ = recording_server
    with pytest.raises(SystemExit, match="repeated a token"):
        wrk_post(url, "{}", {}, seconds=1, connections=2, tokens=["one", "two"])


def test_the_pipeline_floor_takes_every_send_through_sending_to_delivered(floor_env, service):
    template = create_sample_template(service=service)
    subprocess.run([sys.executable, "-c", f"from bench.floor_actors import seed\nseed(20, {str(service.id)!r}, "
                    f"{str(template.id)!r})"], cwd=ROOT, env=floor_env, check=True)
    def mine():
        return Notification.select().where(Notification.service == service)

    assert [row.status for row in mine()] == ["created"] * 20

    worker = subprocess.Popen([sys.executable, "-m", "dramatiq", "bench.floor_actors", "--processes", "1",
                               "--threads", "4"], cwd=ROOT, env=floor_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: mine().where(Notification.status == "delivered").count() == 20, timeout=30)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert all(row.sent_at is not None and row.completed_at >= row.sent_at for row in mine())


def test_every_benchmark_module_imports():
    """A benchmark is run by hand, so nothing else notices one that no longer starts (bench/job.py
    once imported a function accept.py had lost)."""
    modules = [f"bench.{path.stem}" for path in sorted((ROOT / "bench").glob("*.py"))
               if path.stem not in ("__init__", "floor_app", "floor_actors", "noop_actors")]
    result = subprocess.run([sys.executable, "-c", "\n".join(f"import {module}" for module in modules)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
