"""The follow-up outbox's rows (table follow_up, step 215): the one place its SQL lives.

A follow-up is a queue message that must go out because a change committed (a service's callback
for a status change, a print batch's hand-over, a messages report). It is written in the change's
own transaction, so the two commit together or not at all; the writer sends it once the transaction
has committed and deletes the row (workers/enqueue.py), and what a writer that died left behind is
sent by the periodic relay once it is older than its grace. Messages are at least once: a row sent
whose delete did not happen is sent again, and every follow-up's actor takes a repeat as harmless.
"""
from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from models.db import utcnow
from models.follow_up import FollowUp
from pipeline.infrastructure import throughput


@dataclass(frozen=True)
class Waiting:
    """A row waiting for the broker: what its message needs."""

    id: int
    queue_name: str
    actor_name: str
    args: list[Any]


def write(queue_name: str, actor_name: str, args: Sequence[Any]) -> int:
    """Write a follow-up in the current transaction: its id."""
    return int(FollowUp.insert(queue_name=queue_name, actor_name=actor_name, args=list(args),
                               created_at=utcnow()).execute())


def written_before(before: datetime.datetime, limit: int) -> list[Waiting]:
    """The oldest rows written before `before`, at most limit: those whose writer did not relay them."""
    return [Waiting(row.id, row.queue_name, row.actor_name, row.args) for row in
            FollowUp.select().where(FollowUp.created_at < before).order_by(FollowUp.id).limit(limit)]


DELETED_AT_ONCE = 1000  # ids per DELETE: SQLite takes at most 32,766 parameters in one statement


def _delete(batches: list[list[int]]) -> list[None]:
    ids = [row_id for batch in batches for row_id in batch]
    for start in range(0, len(ids), DELETED_AT_ONCE):
        FollowUp.delete().where(FollowUp.id.in_(ids[start:start + DELETED_AT_ONCE])).execute()
    return [None] * len(batches)


# The relays of a process's threads that finish at the same moment share one DELETE (THROUGHPUT=fast).
_deletes: throughput.Grouped[list[int], None] = throughput.grouped("follow-ups-relayed", _delete)


def relayed(ids: list[int]) -> None:
    """Delete the rows whose messages the broker has taken after their writer's commit, in one statement."""
    if ids:
        _deletes.submit(ids)


def relayed_waiting(ids: list[int], before: datetime.datetime) -> None:
    """Delete rows that written_before(before) read and the periodic relay sent. Only rows still
    older than `before`: SQLite gives the highest id again once its row is deleted, and the row now
    holding an id read earlier is another, newer one."""
    for start in range(0, len(ids), DELETED_AT_ONCE):
        FollowUp.delete().where(FollowUp.id.in_(ids[start:start + DELETED_AT_ONCE])
                                & (FollowUp.created_at < before)).execute()
