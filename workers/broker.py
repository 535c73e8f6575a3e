"""Dramatiq broker set-up, shared by the web process (which enqueues) and the worker processes.

Imported before any actor is declared: actors bind to the broker set here.
"""
from __future__ import annotations

from typing import Any

import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.middleware import Middleware

from config import get_settings, redis_url
from models.db import database, init_database, open_connection


class DatabaseConnections(Middleware):
    """Each worker thread keeps one connection, replaced when the server dropped it; forked
    worker processes drop any connection inherited from the parent."""

    def after_process_boot(self, broker: dramatiq.Broker) -> None:
        if database.obj is not None:
            database.obj.dispose()

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        open_connection()


class Broker(RedisBroker):
    """Dramatiq's Redis broker with a short idle poll.

    A consumer whose queue ran empty backs off up to the worker's timeout (1 s by default) before
    looking again. Our stages hand work from queue to queue one message at a time, so a second of
    back-off on a briefly empty queue stalls the whole chain; polling an idle queue every 100 ms
    costs Redis next to nothing.
    """

    def __init__(self, *, idle_poll_ms: int, **options: Any) -> None:
        super().__init__(**options)
        self.idle_poll_ms = idle_poll_ms

    def consume(self, queue_name: str, prefetch: int = 1, timeout: int = 5000) -> dramatiq.Consumer:
        return super().consume(queue_name, prefetch, min(timeout, self.idle_poll_ms))


def build_broker() -> RedisBroker:
    settings = get_settings()
    if database.obj is None:
        init_database(settings.database_url)
    broker = Broker(
        idle_poll_ms=settings.queue_idle_poll_ms,
        url=redis_url(settings), namespace=settings.queue_namespace,
        heartbeat_timeout=settings.queue_heartbeat_timeout_ms,
        maintenance_chance=settings.queue_maintenance_chance,
    )
    broker.add_middleware(DatabaseConnections())
    return broker


broker = build_broker()
dramatiq.set_broker(broker)
