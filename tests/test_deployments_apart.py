"""Two deployments sharing one Redis server, in two of its databases or under two namespaces, never hear
each other's settings changes, and a settings write of one never waits for the other's listeners
(Redis delivers a PUBLISH to the subscribers of every database of a server)."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis

from config import get_settings, redis_url
from models import cache, settings_listener
from tests.factories import create_service

ROOT = Path(__file__).resolve().parent.parent
# The other deployment's web process: its listener, running until the test closes its stdin.
LISTENER = """
import sys, time
from models import settings_listener
settings_listener.listen()
while not settings_listener.listening():
    time.sleep(0.05)
print("listening", flush=True)
sys.stdin.read()
"""
WRITER = "from models import cache; cache._bump()"  # one settings write of that deployment
NOT_CONFIRMED = "did not confirm it in time"


def _in_database(url: str, number: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{number}", "", ""))


def _other_deployment(how: str) -> dict[str, str]:
    url, namespace = redis_url(get_settings()), get_settings().queue_namespace
    ours = int(redis.Redis.from_url(url).get_connection_kwargs().get("db") or 0)
    if how == "another database":
        return {"REDIS_URL": _in_database(url, (ours + 1) % 16), "QUEUE_NAMESPACE": namespace}
    return {"REDIS_URL": url, "QUEUE_NAMESPACE": f"{namespace}-other"}


@contextmanager
def _listening(env: dict[str, str]) -> Iterator[None]:
    process = subprocess.Popen([sys.executable, "-c", LISTENER], cwd=ROOT, env={**os.environ, **env},
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "listening"
        yield
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)


def _write_there(env: dict[str, str]) -> str:
    """A settings write of the other deployment; what it logged."""
    done = subprocess.run([sys.executable, "-c", WRITER], cwd=ROOT, env={**os.environ, **env}, check=True,
                          timeout=60, capture_output=True, text=True)
    return done.stdout + done.stderr


def _acknowledged(client: redis.Redis, generation: bytes) -> list[bytes]:
    """Acknowledgements of generation that a listener left in this database (a writer there takes them)."""
    return list(client.scan_iter(f"*settings-generation-heard:{generation.decode()}"))


@pytest.mark.parametrize("how", ["another database", "another namespace"])
def test_a_deployment_beside_another_on_one_redis_server_hears_only_its_own_changes(how, caplog):
    env = _other_deployment(how)
    ours, theirs = redis.Redis.from_url(redis_url(get_settings())), redis.Redis.from_url(env["REDIS_URL"])
    their_generation_key = f"{env['QUEUE_NAMESPACE']}:settings-generation"
    settings_listener.listen()
    deadline = time.monotonic() + 15
    while not settings_listener.listening():
        assert time.monotonic() < deadline, "our listener did not subscribe"
        time.sleep(0.05)
    try:
        with _listening(env), caplog.at_level(logging.WARNING, logger="models.cache"):
            started = time.monotonic()
            create_service()  # a settings write: it waits for the listeners of its own deployment only
            took = time.monotonic() - started
            generation = ours.get(cache.generation_key())
            assert generation is not None
            assert NOT_CONFIRMED not in caplog.text and took < cache.MIN_WAIT_SECONDS

            # Their listener handles messages in order: had it heard ours, it would have acknowledged
            # it in its own database before their write below returned.
            started = time.monotonic()
            their_log = _write_there(env)
            assert NOT_CONFIRMED not in their_log and time.monotonic() - started < 30
            their_generation = theirs.get(their_generation_key)
            assert their_generation is not None and their_generation != generation
            assert _acknowledged(theirs, generation) == []

            create_service()  # ours hears this only after anything published before it
            assert _acknowledged(ours, their_generation) == []
            assert ours.get(cache.generation_key()) not in (generation, their_generation)
            assert NOT_CONFIRMED not in caplog.text
    finally:
        theirs.delete(their_generation_key)
