"""What the web process adds for operators: request ids, HTTP metrics, /metrics, /_live, /_status.

Counting happens in the process (prometheus_client), so the hot path makes no extra round trip;
only /metrics and /_status read the queues from Redis, when asked.
"""
from __future__ import annotations

import hmac
import itertools
import os
import re
import secrets
import time
from collections.abc import Iterator

import peewee
import redis
from flask import Flask, Response, g, jsonify, request
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from api.errors import error_response
from config import Settings, get_settings
from models.db import utcnow
from observability import logs, metrics
from pipeline.infrastructure import provider_settings
from pipeline.stages import unknown_outcomes
from pipeline.stages.case_events import watch as case_event_subscriptions
from pipeline.stages.letters import held as held_print_batches
from workers import queue_stats

REQUEST_ID_HEADER = "X-Request-Id"
_VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_REFUSALS = {"RateLimitError": "rate", "TooManyRequestsError": "daily"}


class QueueCollector(Collector):
    """Queue depths, oldest ages and live workers, read from the broker when scraped."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily("notify_queue_messages", "Messages per queue by state.", labels=["queue", "state"])
        age = GaugeMetricFamily("notify_queue_oldest_message_age_seconds",
                                "Age of the oldest message waiting in each queue (0 when empty).", labels=["queue"])
        live = GaugeMetricFamily("notify_queue_live_workers", "Worker processes alive on each queue.",
                                 labels=["queue"])
        for queue in queue_stats.queue_stats(minutes=1):
            for state, value in (("ready", queue.ready), ("delayed", queue.delayed), ("dead", queue.dead),
                                 ("in_progress", queue.in_progress)):
                if value is not None:
                    depth.add_metric([queue.name, state], value)
            if queue.oldest_age_seconds is not None or queue.ready == 0:
                age.add_metric([queue.name], queue.oldest_age_seconds or 0.0)
            live.add_metric([queue.name], queue.live_workers)
        yield from (depth, age, live)


class HeldPrintCollector(Collector):
    """Letter batches held back from the print provider (an SFTP host key not the one pinned, our key
    refused): nothing is printed until an operator acts, so it must reach someone who can."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        held = GaugeMetricFamily("notify_print_batches_held", "Letter batches held back from the print provider.")
        oldest = GaugeMetricFamily("notify_print_batch_oldest_held_seconds",
                                   "How long the oldest held letter batch has waited (0 when none).")
        batches = held_print_batches.held_batches()
        held.add_metric([], len(batches))
        now = utcnow()
        oldest.add_metric([], max(((now - batch.held_since).total_seconds() for batch in batches), default=0.0))
        yield from (held, oldest)


class UnknownOutcomeCollector(Collector):
    """Sends whose outcome is unknown (the request went out, no answer came), per channel: each
    waits for its provider's lookup or receipt, and fails at OUTCOME_UNKNOWN_TIMEOUT_SECONDS."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        count = GaugeMetricFamily("notify_sends_outcome_unknown", "Sends waiting on an unknown outcome, by channel.",
                                  labels=["channel"])
        oldest = GaugeMetricFamily("notify_sends_outcome_unknown_oldest_seconds",
                                   "How long the oldest send of unknown outcome has waited (0 when none).",
                                   labels=["channel"])
        for waiting in unknown_outcomes.waiting(utcnow(), get_settings()):
            count.add_metric([waiting.channel], waiting.count)
            oldest.add_metric([waiting.channel], waiting.oldest_seconds)
        yield from (count, oldest)


class CaseEventSubscriptionCollector(Collector):
    """Services linked to their ZGW APIs, by whether their subscription at Open Notificaties held when it
    was last checked (hourly, pipeline/stages/case_events/watch.py): one not holding tells its citizens
    nothing, with nothing failing here."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        links = GaugeMetricFamily("notify_case_event_subscriptions",
                                  "Case-event links by their subscription's state at Open Notificaties when last "
                                  "checked (holds, missing, different, refused, unreachable).", labels=["state"])
        for state, count in case_event_subscriptions.states().items():
            links.add_metric([state], count)
        yield links


class _RequestIds:
    """Ids no other request of any process shares: a random half drawn once per process (again
    after a fork), then a counter. Drawing 16 random bytes per request cost a system call and a
    UUID object for each."""

    def __init__(self) -> None:
        self._pid = 0
        self._prefix = ""
        self._counter = itertools.count()

    def next(self) -> str:
        if self._pid != os.getpid():
            self._pid, self._prefix, self._counter = os.getpid(), secrets.token_hex(8), itertools.count()
        return f"{self._prefix}{next(self._counter):016x}"


_request_ids = _RequestIds()
_REQUEST_ID_ENVIRON = "HTTP_" + REQUEST_ID_HEADER.upper().replace("-", "_")


def begin_request(environ: dict) -> str:
    """A request's id (the caller's X-Request-Id when it is a sane one), bound to its log lines."""
    logs.clear()
    # Read from the environ: the headers object raises and catches a KeyError for a header not sent.
    supplied = environ.get(_REQUEST_ID_ENVIRON, "")
    request_id = supplied if _VALID_REQUEST_ID.fullmatch(supplied) else _request_ids.next()
    logs.bind(request_id=request_id)
    return request_id


# The labelled series are looked up once each: labels() validates and locks on every call.
_durations: dict[tuple[str, str, int], object] = {}
_accepted: dict[tuple[str, str], object] = {}


def count_request(route: str, method: str, status: int, elapsed: float, key_type: str, error: str) -> None:
    """A request answered: its duration by route, method and status; an accepted send by channel and
    key type; a refusal by a limit (error: the answer's error name, "" for none)."""
    series = _durations.get((route, method, status))
    if series is None:
        series = _durations[(route, method, status)] = metrics.http_requests.labels(route, method, str(status))
    series.observe(elapsed)  # type: ignore[attr-defined]
    if status == 201 and method == "POST" and route.startswith("/v2/notifications/"):
        key = (route.rsplit("/", 1)[1], key_type)
        counter = _accepted.get(key)
        if counter is None:
            counter = _accepted[key] = metrics.notifications_accepted.labels(*key)
        counter.inc()  # type: ignore[attr-defined]
    elif status == 429 and error in _REFUSALS:
        metrics.limit_refusals.labels(_REFUSALS[error]).inc()


def _request_started() -> None:
    g.request_id = begin_request(request.environ)
    g.request_started = time.perf_counter()


def _request_finished(response: Response) -> Response:
    response.headers[REQUEST_ID_HEADER] = g.get("request_id", "")
    route = request.url_rule.rule if request.url_rule is not None else "<unmatched>"
    elapsed = time.perf_counter() - g.get("request_started", time.perf_counter())
    error = ""
    if response.status_code == 429:
        errors = (response.get_json(silent=True) or {}).get("errors") or [{}]
        error = errors[0].get("error", "")
    caller = g.get("caller")
    count_request(route, request.method, response.status_code, elapsed, caller.key_type if caller else "", error)
    return response


def queue_checks(settings: Settings) -> dict[str, str]:
    """"ok" for workers and queues, or what is wrong: a queue holding messages with no live worker
    for longer than STATUS_WORKER_ABSENT_SECONDS, or whose oldest message is older than
    STATUS_QUEUE_AGE_SECONDS."""
    try:
        stats = queue_stats.queue_stats(minutes=0)
    except redis.RedisError as exc:
        return {"workers": f"unknown: {type(exc).__name__}", "queues": f"unknown: {type(exc).__name__}"}
    now = time.time()
    absent, old = [], []
    for queue in stats:
        if queue.ready + (queue.in_progress or 0) == 0:
            continue
        if queue.live_workers == 0:
            since = now - queue.last_worker_seen if queue.last_worker_seen else queue.oldest_age_seconds
            if since is None or since > settings.status_worker_absent_seconds:
                absent.append(f"{queue.name} (no live worker for {'ever' if since is None else f'{since:.0f} s'})")
        age = queue.oldest_age_seconds
        if age is not None and age > settings.status_queue_age_seconds:
            old.append(f"{queue.name} (oldest message {age:.0f} s old)")
    return {"workers": "no live worker on " + ", ".join(absent) if absent else "ok",
            "queues": "not draining: " + ", ".join(old) if old else "ok"}


def settings_check(settings: Settings, *, database_answers: bool) -> str:
    """"ok", or every provider setting that cannot work, an SMS gateway in use that the database
    holds included (pipeline/infrastructure/provider_settings.py): the processes that use them refuse to start."""
    found = provider_settings.problems(settings)
    if database_answers:
        found += provider_settings.stored_gateway_problems()
    return "; ".join(found) or "ok"


def health(db: peewee.Database, redis_client: redis.Redis,
           settings: Settings | None = None) -> tuple[dict[str, str], int]:
    """200 when the database and Redis answer and (with settings) the provider settings can work
    and the queues are being worked, else 503 naming what is not."""
    checks = {"database": "ok", "redis": "ok"}
    try:
        db.execute_sql("SELECT 1")
    except peewee.PeeweeException as exc:
        checks["database"] = f"unavailable: {type(exc).__name__}"
    try:
        redis_client.ping()
    except redis.RedisError as exc:
        checks["redis"] = f"unavailable: {type(exc).__name__}"
    if settings is not None:
        checks["settings"] = settings_check(settings, database_answers=checks["database"] == "ok")
    if settings is not None and checks["redis"] == "ok":
        checks.update(queue_checks(settings))
    healthy = all(value == "ok" for value in checks.values())
    return {"status": "ok" if healthy else "unavailable", **checks}, 200 if healthy else 503


def register_monitoring(app: Flask) -> None:
    app.before_request(_request_started)
    app.after_request(_request_finished)
    app.teardown_request(lambda exc: logs.clear())
    collectors = (QueueCollector(), HeldPrintCollector(), UnknownOutcomeCollector(), CaseEventSubscriptionCollector())

    @app.get("/_live")
    def live() -> tuple[Response, int]:
        """Liveness for load balancers: the process answers; nothing else is asked."""
        return jsonify(status="ok"), 200

    @app.get("/metrics")
    def metrics_route() -> Response:
        token = get_settings().metrics_token
        if token:
            given = request.headers.get("Authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return error_response(401, "AuthError", ["Unauthorized: metrics token required"])
        body, content_type = metrics.exposition(*collectors)
        return Response(body, content_type=content_type)
