"""Requests that many threads make at once, made as one call: a database's group commit.

A thread whose request finds no call under way makes one for every request waiting, its own
included; requests that come meanwhile wait (in C, each on a lock of its own), and when the call
ends the first of them makes the next one for all of them. Nobody waits for a timer: a request
alone is made at once, and under load each call carries what came during the one before. Each
request gets its own share of the call's result, or the call's exception.

A worker process runs 48 threads; one round trip per batch instead of per message saves each
message the client library's per-call work (a Redis pipeline's building, its pool's lock, the
reply's parsing).
"""
from __future__ import annotations

import threading
from typing import Callable, Generic, TypeVar

A = TypeVar("A")
R = TypeVar("R")


class _Request(Generic[A, R]):
    __slots__ = ("argument", "error", "lead", "ready", "result")

    def __init__(self, argument: A) -> None:
        self.argument = argument
        self.result: R | None = None
        self.error: BaseException | None = None
        self.lead = False  # this request's thread makes the next call
        self.ready = threading.Lock()  # held until a call has answered it, or it is to lead
        self.ready.acquire()


class Together(Generic[A, R]):
    """call(arguments) -> one result per argument, in order; made for the requests of several
    threads at once. A call that raises raises in each of their threads."""

    def __init__(self, call: Callable[[list[A]], list[R]]) -> None:
        self._call = call
        self._guard = threading.Lock()  # held only to queue a request or hand the lead on
        self._waiting: list[_Request[A, R]] = []
        self._busy = False

    def __call__(self, argument: A) -> R:
        request: _Request[A, R] = _Request(argument)
        with self._guard:
            self._waiting.append(request)
            request.lead, self._busy = not self._busy, True
        if not request.lead:
            # Woken directly, each waiter by its own lock: waiters queued on one shared lock woke one
            # after another, a chain of thread switches that cost more than the call they saved.
            request.ready.acquire()
        if request.lead:
            self._make()
        if request.error is not None:
            raise request.error
        return request.result  # type: ignore[return-value]

    def _make(self) -> None:
        with self._guard:
            batch, self._waiting = self._waiting, []
        try:
            results = self._call([request.argument for request in batch])
            for request, result in zip(batch, results, strict=True):
                request.result = result
        except BaseException as exc:  # noqa: BLE001  (each request's thread raises it as its own)
            for request in batch:
                request.error = exc
        finally:
            with self._guard:
                successor = self._waiting[0] if self._waiting else None
                if successor is None:
                    self._busy = False
                else:
                    successor.lead = True  # it takes everything that came during this call
            if successor is not None:
                successor.ready.release()
            for request in batch:
                if not request.lead:
                    request.ready.release()
