"""Every status change: a compare-and-set UPDATE guarded by the allowed predecessors of the
transition table (pipeline/domain/statuses.py), so two workers racing on one notification cannot
both move it, and an illegal move is refused: counted and logged at DEBUG when it arrives out of order
(the row is already past it), logged as a WARNING otherwise. The writes go through the throughput seam.
"""
from __future__ import annotations

import contextlib
import functools
import logging
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import peewee

from models.db import database, utcnow
from models.notification import Notification, unindexed_status
from observability.metrics import status_transitions, status_transitions_out_of_order
from pipeline.domain.statuses import ALLOWED, COMPLETED, out_of_order
from pipeline.infrastructure import throughput

log = logging.getLogger(__name__)


class IllegalTransition(Exception):
    pass


# Called as listener(notification_id, new_status) after every transition that changed a row (callbacks
# to services hang off this), in the transaction that made the change, so anything it sends out must
# wait for the commit (workers.enqueue).
StatusListener = Callable[[str, str], None]
_listeners: list[StatusListener] = []
# writes(new_status): whether a listener may write a follow-up of a change to new_status (a callback
# in the follow-up outbox, a fallback chain's mark). Asked before every change, so it must be cheap.
FollowsUp = Callable[[str], bool]
_writers: list[FollowsUp] = []


def on_change(listener: StatusListener, *, writes: FollowsUp | None = None) -> StatusListener:
    """Register a listener for status changes; usable as a decorator. A listener that writes what must
    commit with the change says when (writes): such a change is then made in a transaction."""
    if listener not in _listeners:  # registering the same function twice still notifies it once
        _listeners.append(listener)
        if writes is not None:
            _writers.append(writes)
    return listener


def _with_follow_ups(new_status: str) -> contextlib.AbstractContextManager[Any]:
    """The change and what its listeners write, in one transaction: the caller's, or one of its own
    when a listener may write a follow-up. Made in two, a process that died between the change's
    commit and the follow-up's would lose the follow-up for good."""
    if database.in_transaction() or not any(writes(new_status) for writes in _writers):
        return contextlib.nullcontext()
    return database.atomic()


def _values(new_status: str, fields: dict[str, Any]) -> dict[str, Any]:
    now = utcnow()
    values: dict[str, Any] = {"status": new_status, "updated_at": now, **fields}
    if new_status in COMPLETED and "completed_at" not in fields:
        values["completed_at"] = now
    return values


def _notify(notification_id: str, new_status: str) -> None:
    for listener in _listeners:
        listener(notification_id, new_status)


def transition(notification_id: Any, new_status: str, **fields: Any) -> bool:
    """Move a notification to new_status when its current status allows it.

    Returns True when this call made the change, False when the notification is already in
    new_status (a redelivered message: nothing to do). Raises IllegalTransition otherwise.
    """
    with _with_follow_ups(new_status):
        changed = throughput.seam().change_status(notification_id, ALLOWED[new_status], _values(new_status, fields))
        if changed is not None:
            _notify(str(notification_id), new_status)
    if changed is not None:
        # Counted once the change commits: a round rolled back and taken again counts it once.
        database.after_commit(status_transitions.labels(changed, new_status).inc)
        return True
    current = Notification.select(Notification.status).where(Notification.id == notification_id).first()
    if current is not None and current.status == new_status:
        return False
    _refused(str(notification_id), current.status if current else None, new_status)
    raise IllegalTransition(f"{current.status if current else 'missing'} -> {new_status}")


def _refused(notification_id: str, current: str | None, new_status: str) -> None:
    """A move that arrives out of order (the row is already past it) is counted and logged quietly:
    the receipt that beat the send's own record is the common case. Any other refusal is an operator's
    business (docs/decisions/sending-pipeline.md)."""
    if current is not None and out_of_order(current, new_status):
        status_transitions_out_of_order.labels(current, new_status).inc()
        log.debug("status change of %s from %s to %s out of order: already further on", notification_id, current,
                  new_status)
    else:
        log.warning("refused status change of %s from %s to %s", notification_id, current or "<missing>", new_status)


def transition_if_allowed(notification_id: Any, new_status: str, **fields: Any) -> bool:
    """transition(), with a refusal answered False instead of raised (transition logs it): for a
    move that races a receipt, a bounce or a cancel, where the status reached first stands."""
    try:
        return transition(notification_id, new_status, **fields)
    except IllegalTransition:
        return False


NOT_NULL = object()  # a transition_many condition: the column holds any value


def transition_many(notification_ids: Collection[Any], new_status: str, *,
                    where: Mapping[peewee.Field, Any] | None = None, also: peewee.Expression | None = None,
                    log_refused: bool = True, **fields: Any) -> list[str]:
    """Move every one of these notifications whose status allows it, in one statement; the ids moved.

    `where` adds conditions on other columns (None: IS NULL, NOT_NULL: IS NOT NULL), `also` any other
    condition (a cancel's "not yet due"); a field's value may be another column of the row, copied
    over. A batch must not fail for one late or duplicate receipt among them, so refusals are logged
    rather than raised; notifications already in new_status, or held back by `where`, are skipped
    silently. `log_refused=False`: the caller deals with the ones not moved itself.
    """
    if not notification_ids:
        return []
    values = _values(new_status, fields)
    with _with_follow_ups(new_status):
        if where is None and also is None:
            moved_rows = throughput.seam().change_statuses(list(notification_ids), ALLOWED[new_status], values)
        else:
            moved_rows = _change_where(notification_ids, new_status, values, where, also)
        moved = _announced(moved_rows, new_status)
    return _moved(moved_rows, moved, new_status, set(map(str, notification_ids)) if log_refused else set())


def _change_where(notification_ids: Collection[Any], new_status: str, values: dict[str, Any],
                  where: Mapping[peewee.Field, Any] | None, also: peewee.Expression | None) -> list[tuple[Any, str]]:
    condition = Notification.id.in_(list(notification_ids)) & unindexed_status().in_(ALLOWED[new_status])
    for field, value in (where or {}).items():
        condition &= (field.is_null() if value is None else field.is_null(False) if value is NOT_NULL
                      else field == value)
    if also is not None:
        condition &= also
    return [(row.id, row.notification_type) for row in Notification.update(values).where(condition)
            .returning(Notification.id, Notification.notification_type).execute()]


def _announced(moved_rows: list[tuple[Any, str]], new_status: str) -> list[str]:
    """The ids a batch move's RETURNING gave (id, notification type), each told to the listeners."""
    moved = [str(row_id) for row_id, _ in moved_rows]
    for notification_id in moved:
        _notify(notification_id, new_status)
    return moved


def _moved(moved_rows: list[tuple[Any, str]], moved: list[str], new_status: str, wanted: set[str]) -> list[str]:
    """A batch move's ids, counted; those of `wanted` that did not move are logged where refused."""
    for notification_type, count in Counter(notification_type for _, notification_type in moved_rows).items():
        # Once per type (each is a lock and a write), once the change commits (a rolled-back round counts none).
        database.after_commit(functools.partial(status_transitions.labels(notification_type, new_status).inc, count))
    if len(moved) < len(wanted):
        _log_refused(wanted - set(moved), new_status)
    return moved


def transition_each(new_status: str, changes: Sequence[tuple[Any, Mapping[str, Any]]]) -> list[bool]:
    """transition_if_allowed() for many notifications in one statement, each with values of its own
    (the same fields for all): whether each moved. An id given twice moves at most once, for the
    first; refusals are logged as transition_many logs them."""
    if not changes:
        return []
    first: dict[str, int] = {}
    for index, (notification_id, _) in enumerate(changes):
        first.setdefault(str(notification_id), index)
    unique = [changes[index] for index in first.values()]
    shared = _values(new_status, {})  # the status and its timestamps, alike for every row
    with _with_follow_ups(new_status):
        moved_rows = throughput.seam().change_each_status(ALLOWED[new_status], shared, unique)
        announced = _announced(moved_rows, new_status)
    moved = set(_moved(moved_rows, announced, new_status, set(first)))
    return [str(notification_id) in moved and first[str(notification_id)] == index
            for index, (notification_id, _) in enumerate(changes)]


def _log_refused(notification_ids: set[str], new_status: str) -> None:
    current = {str(row.id): row.status for row in Notification.select(Notification.id, Notification.status)
               .where(Notification.id.in_(list(notification_ids)))}
    for notification_id in sorted(notification_ids):
        status = current.get(notification_id)
        if status != new_status and status not in ALLOWED[new_status]:  # allowed: held back by `where`
            _refused(notification_id, status, new_status)
