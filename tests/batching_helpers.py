"""Making a Batcher's requests (pipeline/infrastructure/throughput/fast/batching.py) wait behind a
round trip, so a test knows they are taken by one."""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pipeline.infrastructure import throughput
from pipeline.infrastructure.throughput import fast
from pipeline.infrastructure.throughput.fast import Fast
from pipeline.infrastructure.throughput.fast.batching import Batcher
from tests.conftest import wait_for


def fast_only() -> Fast:
    """The fast implementation; the test is skipped on THROUGHPUT=reference, where each thread's
    work is its own call and nothing is taken together."""
    implementation = throughput.seam()
    if not isinstance(implementation, Fast):
        pytest.skip("requests are taken together by the fast implementation only")
    return implementation


def batcher_of(group: throughput.Grouped) -> Batcher:
    """The Batcher serving a group in this process (fast_only)."""
    fast_only()
    return fast.batcher(group)


def wait_until_queued(batcher: Batcher, count: int) -> None:
    """Until `count` requests wait behind the round trip under way: the moment a thread starts
    waiting is not observable from outside, and tests need it to know what a round will carry."""
    wait_for(lambda: len(batcher._queued) >= count)


@contextlib.contextmanager
def call_under_way(batcher: Batcher, plug: Any) -> Iterator[None]:
    """A call (for the request `plug`) that lasts until the block ends: requests made in the block
    wait for it, then the next call takes them all."""
    entered, may_end = threading.Event(), threading.Event()
    original = batcher.process

    def held(arguments: list) -> list:
        if not entered.is_set():
            entered.set()
            may_end.wait(10)
        return original(arguments)

    batcher.process = held
    plugging = threading.Thread(target=batcher.submit, args=(plug,))
    plugging.start()
    try:
        wait_for(entered.is_set)
        yield
    finally:
        may_end.set()
        plugging.join(10)
        batcher.process = original


def taken_together(batcher: Batcher, plug: Any, calls: list[Callable[[], None]]) -> None:
    """Each call on a thread of its own, all of them waiting behind one round trip (for `plug`) so that
    the next round takes them together; returns once every call has ended."""
    with call_under_way(batcher, plug):
        threads = [threading.Thread(target=call) for call in calls]
        for thread in threads:
            thread.start()
        wait_until_queued(batcher, len(calls))
    for thread in threads:
        thread.join(10)
