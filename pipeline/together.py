"""Requests that many threads make at once, made as one call: a database's group commit.

A thread whose request finds no call under way makes one for every request waiting, its own
included; requests that come meanwhile wait (in C, on a lock), and the next of their threads makes
the next call for all of them. Nobody waits for a timer: a request alone is made at once, and under
load each call carries what came during the one before. Each request gets its own share of the
call's result, or the call's exception.

A worker process runs 48 threads; one round trip per batch instead of per message saves each
message the client library's per-call work (a Redis pipeline's building, its pool's lock, the
reply's parsing).
"""
from __future__ import annotations

import collections
import threading
from typing import Callable, Generic, TypeVar

A = TypeVar("A")
R = TypeVar("R")


class _Request(Generic[A, R]):
    __slots__ = ("argument", "result", "error", "done")

    def __init__(self, argument: A) -> None:
        self.argument = argument
        self.result: R | None = None
        self.error: BaseException | None = None
        self.done = False


class Together(Generic[A, R]):
    """call(arguments) -> one result per argument, in order; made for the requests of several
    threads at once. A call that raises raises in each of their threads."""

    def __init__(self, call: Callable[[list[A]], list[R]]) -> None:
        self._call = call
        self._waiting: collections.deque[_Request[A, R]] = collections.deque()
        self._turn = threading.Lock()

    def __call__(self, argument: A) -> R:
        request: _Request[A, R] = _Request(argument)
        self._waiting.append(request)
        with self._turn:
            if not request.done:  # an earlier turn's call did not carry it: this one makes the call
                self._make()
        if request.error is not None:
            raise request.error
        return request.result  # type: ignore[return-value]

    def _make(self) -> None:
        batch: list[_Request[A, R]] = []
        while self._waiting:  # only the holder of the turn takes requests out
            batch.append(self._waiting.popleft())
        try:
            results = self._call([request.argument for request in batch])
            for request, result in zip(batch, results, strict=True):
                request.result = result
        except BaseException as exc:  # noqa: BLE001  (each request's thread raises it as its own)
            for request in batch:
                request.error = exc
        finally:
            for request in batch:
                request.done = True
