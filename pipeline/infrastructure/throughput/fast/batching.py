"""Group commit: requests that threads make at the same moment share one round trip.

Every accepted send needs a Redis counter, a database INSERT and a queue message; every send a
worker makes, a read of its notification, its receipt queued in an outbox and its record as sent.
Each round trip costs far more CPU than the work it carries (socket calls, the client libraries'
per-command work, a commit per statement on the database's side). A Batcher lets the requests
that are waiting at the same moment share one: a web process's request threads, a worker process's
48 threads.

It works by combining, with no thread of its own: a request that finds no round trip under way
does its own at once, so a lone request pays nothing extra. Requests that arrive while one is under
way queue up; when it ends, the first of them is woken to do the next round trip for all of them.
Batches grow with load by themselves.
"""
from __future__ import annotations

import _thread
import threading
import time
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class _Waiting(Generic[T, R]):
    __slots__ = ("item", "woken", "leads", "result", "error")

    def __init__(self, item: T) -> None:
        self.item = item
        # A bare lock is the cheapest thing a thread can block on: whoever serves it releases it.
        self.woken = _thread.allocate_lock()
        self.woken.acquire()
        self.leads = False
        self.result: R | None = None
        self.error: BaseException | None = None


class Batcher(Generic[T, R]):
    """Runs process(items) for the items of every request waiting, at most max_batch at a time.

    process returns one outcome per item, in order: a result, or an exception that the request
    that handed in that item raises. An exception raised by process itself is raised by every
    request of the batch.
    """

    def __init__(self, name: str, process: Callable[[list[T]], Sequence[R | BaseException]], *,
                 max_batch: int = 64, linger_seconds: float = 0.0) -> None:
        """linger_seconds: how long a round waits for more requests before it starts, when the
        round before served more than one (a sign that others are on their way); a request
        arriving at a quiet moment never waits."""
        self.name = name
        self.process = process
        self.max_batch = max_batch
        self.linger_seconds = linger_seconds
        self._lock = threading.Lock()
        self._queued: list[_Waiting[T, R]] = []
        self._busy = False
        self._last_batch = 1

    def submit(self, item: T) -> R:
        """process's outcome for item: returned, or raised when it is an exception."""
        return self.submit_all((item,))[0]

    def submit_all(self, items: Sequence[T]) -> list[R]:
        """submit() for several items of one thread, queued together so that a round usually takes
        them all: their outcomes in order. The first exception among them is raised once every item
        has been served (a request that left early could be handed a round to lead and never lead it)."""
        mine: list[_Waiting[T, R]] = [_Waiting(item) for item in items]
        if not mine:
            return []
        with self._lock:
            self._queued.extend(mine)
            mine[0].leads = not self._busy
            self._busy = True
        for waiting in mine:
            if not waiting.leads:
                waiting.woken.acquire()  # served by a round trip, or asked to lead the next
            if waiting.leads:
                self._lead(waiting)
        for waiting in mine:
            if waiting.error is not None:
                raise waiting.error
        return [waiting.result for waiting in mine]  # type: ignore[misc]

    def _lead(self, me: _Waiting[T, R]) -> None:
        if self.linger_seconds and self._last_batch > 1:
            # Under load the requests behind this one are a moment away: waiting for them costs
            # them less than the round trip each would otherwise need.
            time.sleep(self.linger_seconds)
        served = False
        while not served:
            with self._lock:
                batch = self._queued[:self.max_batch]
                del self._queued[:self.max_batch]
                self._last_batch = len(batch)
            served = me in batch
            self._run(batch, me)
        with self._lock:
            if self._queued:
                # Hand the next round trip to the first request waiting: it has nothing else to do.
                successor = self._queued[0]
                successor.leads = True
                successor.woken.release()
            else:
                self._busy = False

    def _run(self, batch: list[_Waiting[T, R]], leader: _Waiting[T, R]) -> None:
        try:
            outcomes = list(self.process([waiting.item for waiting in batch]))
            if len(outcomes) != len(batch):
                raise RuntimeError(f"{self.name}: {len(outcomes)} outcomes for {len(batch)} items")
        except BaseException as exc:  # not swallowed: every request of the batch raises it
            outcomes = [exc] * len(batch)
        for waiting, outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                waiting.error = outcome
            else:
                waiting.result = outcome
            if waiting is not leader:
                waiting.woken.release()
