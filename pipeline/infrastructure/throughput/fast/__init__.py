"""The fast implementation of the throughput seam: group commit, cached SQL and leases (see
recording.py, counters.py, leases.py, statuses.py and dispatch.py for what each saves, measured;
batching.py for the group commit, sql.py for the statements built once)."""
from __future__ import annotations

import weakref
from collections.abc import Sequence

from pipeline.infrastructure.throughput import Grouped, R, T
from pipeline.infrastructure.throughput.fast import counters, dispatch, leases, recording, statuses
from pipeline.infrastructure.throughput.fast.batching import Batcher
from pipeline.infrastructure.throughput.shared import Shared

# Weakly: a group made per object (an outbox's adds) goes with its object.
_batchers: weakref.WeakKeyDictionary[Grouped, Batcher] = weakref.WeakKeyDictionary()


def batcher(group: Grouped[T, R]) -> Batcher[T, R]:
    """The Batcher that serves group in this process."""
    found = _batchers.get(group)
    if found is None:  # made twice at once, one of them serves both
        found = _batchers.setdefault(group, Batcher(group.name, group.process, linger_seconds=group.linger_seconds))
    return found


class Fast(Shared):
    # Each operation is a function of the module that says what makes it fast.
    record = staticmethod(recording.record)
    check_rate_limit = staticmethod(leases.check_rate_limit)
    settings_generation = staticmethod(counters.settings_generation)
    change_status = staticmethod(statuses.change_status)
    change_statuses = staticmethod(statuses.change_statuses)
    change_each_status = staticmethod(statuses.change_each_status)
    awaiting_dispatch = staticmethod(dispatch.awaiting_dispatch)
    claim_awaiting = staticmethod(dispatch.claim_awaiting)
    claim = staticmethod(dispatch.claim)
    any_held_receipt = staticmethod(dispatch.any_held_receipt)

    def submit_all(self, group: Grouped[T, R], items: Sequence[T]) -> list[R]:
        return batcher(group).submit_all(items)
