"""The only way to enqueue: after the database commit, so no message announces a rolled-back row.

Two ways, by what brings a lost message back (docs/decisions/sending-pipeline.md, "What brings back a
message lost between a commit and the broker?"):
- enqueue_after_commit: for a message whose row is its own outbox. A message that cannot be sent
  because Redis is down, or that a process killed after the commit never sent, is found again by a
  sweep that sends whatever stayed in its stage too long (workers/periodic.py): the row has committed,
  so failing its request or its stage now would report as lost something that is not.
- follow_up: for a message nothing in the rows would bring back (a service's callback). It is written
  in the change's own transaction (the follow-up outbox, pipeline/infrastructure/follow_ups.py), sent
  after the commit and then deleted; what a dead writer or an outage left is sent by relay_waiting.
"""
from __future__ import annotations

import contextlib
import datetime
import logging
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import dramatiq
from dramatiq.errors import BrokerConnectionError

from models.db import database
from models.outages import DATABASE_UNAVAILABLE, REDIS_UNAVAILABLE
from pipeline.infrastructure import follow_ups
from pipeline.infrastructure.outbox import Outbox
from workers.actors import Actor
from workers.broker import current_broker

log = logging.getLogger(__name__)
# A broker that cannot take a message now: Redis's client raises its own errors, RabbitMQ's Dramatiq's.
BROKER_UNAVAILABLE = (*REDIS_UNAVAILABLE, BrokerConnectionError)
RELAYED_AT_ONCE = 500  # rows a periodic relay reads, sends and deletes per round


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


Written = list[tuple[int, dramatiq.Message]]  # a transaction's follow-ups: row id, message


class _Transaction(threading.local):
    """The follow-ups written in this thread's current transaction, relayed once it commits."""

    def __init__(self) -> None:
        self.transaction: object = None
        self.written: Written = []


_current = _Transaction()


def follow_up(actor: Actor, *args: object) -> None:
    """Send actor(*args) once the current transaction commits, having written it in that transaction
    (the follow-up outbox): the change and its follow-up commit together, and a process that dies
    after the commit leaves the row for relay_waiting. Outside a transaction it is written and sent
    at once. The actor must take a repeated message as harmless: delivery is at least once."""
    message = actor.message(*args)
    row_id = follow_ups.write(message.queue_name, message.actor_name, message.args)
    top = database.top_transaction()
    if top is None:
        _relay([(row_id, message)])
        return
    if _current.transaction is not top:  # the first of this transaction: one relay for all of them
        _current.transaction, _current.written = top, []
        written = _current.written
        database.after_commit(lambda: _relay(written))
    _current.written.append((row_id, message))


def _relay(written: Written) -> None:
    """Send a committed transaction's follow-ups, then delete their rows in one statement. An outage
    is logged, not raised: the change has committed, and what is left the periodic relay sends."""
    if _current.written is written:
        _current.transaction, _current.written = None, []
    sent = _send([message for _, message in written])
    try:
        follow_ups.relayed([row_id for row_id, _ in written[:sent]])
    except DATABASE_UNAVAILABLE as exc:
        log.warning("%d follow-up(s) queued but not deleted, the database unavailable (queued again later): %r",
                    sent, exc)


def _send(messages: list[dramatiq.Message]) -> int:
    """Enqueue the messages in order, stopping at a broker outage: how many went."""
    broker = current_broker()
    for sent, message in enumerate(messages):
        try:
            broker.enqueue(message)
        except BROKER_UNAVAILABLE as exc:
            log.warning("%d follow-up(s) not queued, the broker unavailable (the relay sends them later): %r",
                        len(messages) - sent, exc)
            return sent
    return len(messages)


def relay_waiting(written_before: datetime.datetime) -> int:
    """Send the follow-ups written before `written_before` and still waiting: their writer died
    between its commit and its relay, or met an outage. The number sent."""
    relayed = 0
    while True:
        waiting = follow_ups.written_before(written_before, RELAYED_AT_ONCE)
        sent = _send([dramatiq.Message(queue_name=row.queue_name, actor_name=row.actor_name, args=tuple(row.args),
                                       kwargs={}, options={}) for row in waiting])
        follow_ups.relayed_waiting([row.id for row in waiting[:sent]], written_before)
        relayed += sent
        if sent < RELAYED_AT_ONCE:
            return relayed
