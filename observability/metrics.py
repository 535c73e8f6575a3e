"""Prometheus metrics of every process, counted in-process (no round trip on the hot path).

Under gunicorn (gunicorn.conf.py) and the dramatiq CLI each process writes its samples to files in
PROMETHEUS_MULTIPROC_DIR and one exposition reads them all: the web's /metrics, and for workers
the exposition server of Dramatiq's Prometheus middleware (port `dramatiq_prom_port`, 9191).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def _dramatiq_cli() -> bool:
    """True in the processes of `dramatiq workers` (their argv is the CLI's, inherited on fork)."""
    program = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    return (program.name in ("dramatiq", "dramatiq_cli.py")
            or (program.name == "__main__.py" and program.parent.name == "dramatiq"))


# prometheus_client picks its value class when first imported: the directory must be set before.
if _dramatiq_cli() and "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
    from dramatiq.middleware.prometheus import DB_PATH

    os.environ["PROMETHEUS_MULTIPROC_DIR"] = DB_PATH

import prometheus_client as prom  # noqa: E402
from prometheus_client import multiprocess  # noqa: E402
from prometheus_client.registry import Collector  # noqa: E402

SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

http_requests = prom.Histogram(
    "notify_http_request_duration_seconds", "Web requests by route, method and status (seconds).",
    ["route", "method", "status"], buckets=SECONDS)
notifications_accepted = prom.Counter(
    "notify_notifications_accepted_total", "Notifications accepted by the API.", ["channel", "key_type"])
status_transitions = prom.Counter(
    "notify_status_transitions_total", "Status changes applied, by channel and new status.", ["channel", "status"])
status_transitions_out_of_order = prom.Counter(
    "notify_status_transitions_out_of_order_total",
    "Status changes refused because the notification was already past them (a receipt before the send's own"
    " record), by the status it had and the one refused.", ["from", "to"])
provider_calls = prom.Histogram(
    "notify_provider_call_duration_seconds", "Provider calls by provider, channel and outcome (seconds).",
    ["provider", "channel", "outcome"], buckets=SECONDS)
callback_attempts = prom.Counter(
    "notify_callback_attempts_total", "Callbacks to services by kind and outcome.", ["kind", "outcome"])
limit_refusals = prom.Counter(
    "notify_limit_refusals_total", "Sends refused by the rate limit or a daily limit.", ["limit"])
provider_webhook_refusals = prom.Counter(
    "notify_provider_webhook_refusals_total",
    "Provider webhook messages refused or not understood, by provider and reason.", ["provider", "reason"])

case_event_outcomes = prom.Counter(
    "notify_case_event_outcomes_total",
    "Case events (statuses set on cases in Open Zaak) by the outcome kept; the scenario for outcomes decided"
    " from the case, the API for outcomes an API caused (waiting is counted at each try).",
    ["outcome", "scenario", "api"])
case_event_klantcontacts = prom.Counter(
    "notify_case_event_klantcontacts_total",
    "Klantcontacten recorded in Open Klant after a case event's message, by outcome (waiting at each try).",
    ["outcome"])

messages_without_notification = prom.Counter(
    "notify_messages_without_notification_total",
    "Send messages whose notification does not exist (deleted, or never in this database), by actor.", ["actor"])


def exposition(*collectors: Collector) -> tuple[bytes, str]:
    """This process's metrics (with PROMETHEUS_MULTIPROC_DIR every process's of the server) and
    what the collectors read when asked (queue depths: the same for every process, read once)."""
    registry = prom.CollectorRegistry()
    if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
        multiprocess.MultiProcessCollector(registry)
        text = prom.generate_latest(registry)
    else:
        text = prom.generate_latest(prom.REGISTRY)
    extra = prom.CollectorRegistry()
    for collector in collectors:
        extra.register(collector)
    return text + prom.generate_latest(extra), prom.CONTENT_TYPE_LATEST


def mark_process_dead(pid: int) -> None:
    """Drop a finished process's live gauges (its counters stay summed in)."""
    if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
        multiprocess.mark_process_dead(pid)
