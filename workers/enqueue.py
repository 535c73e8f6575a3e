"""The only way to enqueue: after the database commit, so no message announces a rolled-back row.

A message that cannot be sent because Redis is down is logged and left to the sweeps, which send
again whatever stayed in its stage too long (workers/periodic.py): the row has committed, so
failing its request or its stage now would report as lost something that is not.
"""
from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Iterator
from typing import Any

from models.db import database
from models.outages import REDIS_UNAVAILABLE
from pipeline.infrastructure.outbox import Outbox
from workers.actors import Actor

log = logging.getLogger(__name__)


@contextlib.contextmanager
def left_to_the_sweeps(what: object) -> Iterator[None]:
    """Around a send to Redis after the commit: an outage is logged, not raised."""
    try:
        yield
    except REDIS_UNAVAILABLE as exc:
        log.warning("could not queue %r, Redis unavailable (the sweeps will): %r", what, exc)


def enqueue_after_commit(actor: Actor, *args: object, delay_ms: int | None = None) -> None:
    """Send actor(*args) once the current transaction commits (at once outside a transaction)."""
    def send() -> None:
        with left_to_the_sweeps(actor):
            actor.send_with_options(args=args, delay=delay_ms)
    database.after_commit(send)


def start_flush(flush: Actor) -> None:
    """Send flush(<new id>): a flush's id names the batch it holds (pipeline/infrastructure/outbox.py)."""
    flush.send(uuid.uuid4().hex)


def add_now(outbox: Outbox, items: list[Any], flush: Actor) -> None:
    """Queue items in a Redis outbox at once, and start a flush when none of that outbox is under
    way. An outage while adding raises; once the items are in, a lost flush message is the sweep's."""
    if outbox.add(*items):
        with left_to_the_sweeps(flush):
            start_flush(flush)


def add_after_commit(outbox: Outbox, items: list[Any], flush: Actor) -> None:
    """add_now once the current transaction commits (at once outside one); the row has committed,
    so an outage is logged and left to the sweeps."""
    def add() -> None:
        with left_to_the_sweeps(flush):
            add_now(outbox, items, flush)
    database.after_commit(add)


@contextlib.contextmanager
def enqueued_together() -> Iterator[None]:
    """Messages sent inside the block for rows already committed: each goes to the broker as it is
    sent; an outage is logged once, and the sweeps send what did not go."""
    with left_to_the_sweeps("messages sent together"):
        yield
