"""The only way to enqueue: after the database commit, so no message announces a rolled-back row."""
from __future__ import annotations

import contextlib
import uuid
from typing import Any, Iterator

import dramatiq

from models.db import database
from pipeline.outbox import Outbox
from workers.broker import broker


def enqueue_after_commit(actor: dramatiq.Actor, *args: object, delay_ms: int | None = None) -> None:
    """Send actor(*args) once the current transaction commits (at once outside a transaction)."""
    database.after_commit(lambda: actor.send_with_options(args=args, delay=delay_ms))


def add_after_commit(outbox: Outbox, items: list[Any], flush: dramatiq.Actor) -> None:
    """Queue items in a Redis outbox once the current transaction commits (at once outside one),
    and send flush(<new id>) when no flush of that outbox is under way."""
    def add() -> None:
        if outbox.add(*items):
            flush.send(uuid.uuid4().hex)
    database.after_commit(add)


@contextlib.contextmanager
def enqueued_together() -> Iterator[None]:
    """What this thread enqueues inside the block goes to Redis in one round trip as it ends."""
    with broker.pipelined():
        yield
