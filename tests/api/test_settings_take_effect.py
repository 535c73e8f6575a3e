"""A change of settings counts from the next request in every web process, however long rows are cached.

Two gunicorn worker processes with CACHE_TTL_SECONDS of an hour serve the requests; the change is made
through the admin API, so by one of them. The access log names the process that served each request:
before a change both must have served (and cached) the old settings, after it both must have served
requests, and every request after it must see the change.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from models import cache, settings_listener
from models.api_key import ApiKey
from pipeline.infrastructure import redis_state
from tests.admin_helpers import admin_headers
from tests.conftest import gunicorn_server
from tests.factories import auth_headers, create_key, create_sample_template, create_service
from tests.redis_watch import commands_naming

ADMIN_URL = "https://admin.example.nl"
TRIAL = f"Cannot send to this recipient when service is in trial mode - see {ADMIN_URL}/trial-mode"


@pytest.fixture(scope="module")
def web(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    log = tmp_path_factory.mktemp("web") / "access.log"
    log.touch()
    with contextlib.ExitStack() as stack:
        before = os.environ.get("CACHE_TTL_SECONDS")
        os.environ["CACHE_TTL_SECONDS"] = "3600"  # only the gunicorn started here caches
        try:
            url = stack.enter_context(gunicorn_server(
                "--workers", "2", "--access-logfile", str(log), "--access-logformat", "%(p)s %(s)s %(U)s"))
        finally:
            os.environ["CACHE_TTL_SECONDS"] = before or "0"
        yield url, log


def _lines(log: Path) -> list[str]:
    """The log's lines; the last may be one a process is still writing, without its newline yet."""
    return log.read_bytes().decode(errors="replace").splitlines(keepends=True)


def _served_by(log: Path, skip: int) -> set[str]:
    """The processes that answered v2 requests in the log's lines after its first `skip`."""
    # One JSON object per line (observability.logs); the access line's message is our format.
    complete = [line for line in _lines(log)[skip:] if line.endswith("\n")]
    messages = [json.loads(line)["message"] for line in complete if line.strip()]
    return {message.split()[0] for message in messages if " /v2/" in message}


def _both_processes(log: Path, send: Callable[[], requests.Response],
                    expect: Callable[[requests.Response], None]) -> None:
    """Send rounds of concurrent requests until both processes have answered some; each answer must pass."""
    # A line half written now belongs to an earlier request: skip it too, whole, once it is done.
    skip = len(_lines(log))
    for _ in range(30):
        with ThreadPoolExecutor(max_workers=8) as pool:
            for response in pool.map(lambda _: send(), range(8)):
                expect(response)
        if len(_served_by(log, skip)) == 2:
            return
    raise AssertionError(f"one process answered everything: {_served_by(log, skip)}")


def _error(response: requests.Response) -> tuple[int, str]:
    return response.status_code, response.json()["errors"][0]["message"]


def _sms(url: str, service, key: str) -> Callable[[], requests.Response]:
    template = create_sample_template(service=service, body="Hoi")
    body = {"phone_number": "0612345678", "template_id": str(template.id)}
    return lambda: requests.post(f"{url}/v2/notifications/sms", json=body, headers=auth_headers(key), timeout=10)


def _admin(method: str, url: str, path: str, **kwargs) -> None:
    response = requests.request(method, f"{url}/admin{path}", headers=admin_headers(), timeout=10, **kwargs)
    assert response.status_code == 200, response.text


def _status(expected: int) -> Callable[[requests.Response], None]:
    def expect(response: requests.Response) -> None:
        assert response.status_code == expected, response.text
    return expect


def _refused(expected: tuple[int, str]) -> Callable[[requests.Response], None]:
    def expect(response: requests.Response) -> None:
        assert _error(response) == expected
    return expect


def test_a_revoked_key_is_refused_by_every_process_at_once(web):
    url, log = web
    service = create_service()
    key = create_key(service=service)
    read = lambda: requests.get(f"{url}/v2/templates", headers=auth_headers(key), timeout=10)  # noqa: E731
    _both_processes(log, read, _status(200))
    _admin("DELETE", url, f"/services/{service.id}/api-keys/{ApiKey.get().id}")
    _both_processes(log, read, _refused((403, "Invalid token: API key revoked")))


def test_a_key_rotated_without_overlap_is_refused_by_every_process_at_once(web):
    url, log = web
    service = create_service()
    key = create_key(service=service)
    read = lambda: requests.get(f"{url}/v2/templates", headers=auth_headers(key), timeout=10)  # noqa: E731
    _both_processes(log, read, _status(200))
    rotated = requests.post(f"{url}/admin/services/{service.id}/api-keys/{ApiKey.get().id}/rotate",
                            json={"overlap_seconds": 0}, headers=admin_headers(), timeout=10)
    assert rotated.status_code == 201, rotated.text
    _both_processes(log, read, _refused((403, "Invalid token: API key revoked")))
    new_key = rotated.json()["new_key"]["key"]
    _both_processes(log, lambda: requests.get(f"{url}/v2/templates", headers=auth_headers(new_key), timeout=10),
                    _status(200))


def test_going_live_counts_from_the_next_request(web):
    url, log = web
    service = create_service(trial_mode=True)
    send = _sms(url, service, create_key(service=service))
    _both_processes(log, send, _refused((400, TRIAL)))
    _admin("PATCH", url, f"/services/{service.id}", json={"trial_mode": False})
    _both_processes(log, send, _status(201))


def test_a_changed_limit_or_permission_counts_from_the_next_request(web):
    url, log = web
    service = create_service()
    send = _sms(url, service, create_key(service=service))
    _both_processes(log, send, _status(201))
    _admin("PATCH", url, f"/services/{service.id}", json={"sms_daily_limit": 1})
    _both_processes(log, send, _refused((429, "Exceeded send limits (sms: 1) for today")))
    _admin("PATCH", url, f"/services/{service.id}", json={"sms_daily_limit": 1000})
    if time.time() % 60 > 40:  # the requests below must fall in the rate limit's window of this first one
        time.sleep(60 - time.time() % 60)
    assert send().status_code == 201
    _admin("PATCH", url, f"/services/{service.id}", json={"rate_limit": 1})
    _both_processes(log, send, _refused((429, "Exceeded rate limit for key type live of 1 requests per 60 seconds")))
    _admin("PATCH", url, f"/services/{service.id}", json={"rate_limit": 3000, "permissions": ["email"]})
    _both_processes(log, send, _refused((400, "Service is not allowed to send text messages")))


def test_both_processes_hear_changes_and_read_no_generation_per_request(web):
    # What makes the tests above hold without a Redis read per request: each process listens
    # (models.settings_listener), and the changes' writes wait for both to have heard them.
    url, log = web
    service = create_service()
    key = create_key(service=service)
    read = lambda: requests.get(f"{url}/v2/templates", headers=auth_headers(key), timeout=10)  # noqa: E731
    _both_processes(log, read, _status(200))
    channel = cache.changes_channel()
    this_process = int(settings_listener.listening())  # the suite's own, when a test made it listen
    assert dict(redis_state.client().pubsub_numsub(channel))[channel.encode()] >= 2 + this_process
    with commands_naming(cache.generation_key(), "MGET") as reads:
        _both_processes(log, read, _status(200))
    assert reads == []
