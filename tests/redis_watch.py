"""What Redis receives while a block runs, seen through MONITOR: for tests that must show a command is
not sent (by this process or by the servers a test started), whatever else shares the Redis server."""
from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator

import redis

from config import get_settings, redis_url


@contextlib.contextmanager
def commands_naming(key: str, command: str) -> Iterator[list[str]]:
    """The commands named `command` (e.g. MGET) that mention `key`, received while the block runs."""
    seen: list[str] = []
    end = f"end-of-watch-{uuid.uuid4().hex}"
    watching = threading.Event()
    client = redis.Redis.from_url(redis_url(get_settings()))

    def watch() -> None:
        with client.monitor() as monitor:
            watching.set()
            for received in monitor.listen():
                text = received["command"]
                if end in text:
                    return
                if text.upper().startswith(command.upper()) and key in text:
                    seen.append(text)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    assert watching.wait(10), "MONITOR did not start"
    try:
        yield seen
    finally:
        client.echo(end)
        thread.join(10)
        client.close()
