"""pipeline.infrastructure.throughput.fast.batching.Batcher: requests waiting at the same moment
share one process() call."""
from __future__ import annotations

import threading
import time

import pytest

from pipeline.infrastructure.throughput.fast.batching import Batcher
from tests.batching_helpers import wait_until_queued

TIMEOUT = 10


class Recorder:
    """A process() that records each batch it got; while `gate` is set to an Event, the first call
    blocks on it, so the test can line other requests up behind a round trip under way."""

    def __init__(self, outcome=lambda item: item * 10) -> None:
        self.batches: list[list] = []
        self.outcome = outcome
        self.gate: threading.Event | None = None
        self.entered = threading.Event()

    def __call__(self, items: list) -> list:
        self.batches.append(list(items))
        gate, self.gate = self.gate, None
        if gate is not None:
            self.entered.set()
            assert gate.wait(TIMEOUT)
        return [self.outcome(item) for item in items]


class Submitter(threading.Thread):
    """Submits one item on a thread of its own and keeps what submit returned or raised."""

    def __init__(self, batcher: Batcher, item, *, many: bool = False) -> None:
        super().__init__(daemon=True)
        self.batcher, self.item, self.many = batcher, item, many
        self.result = self.error = None

    def run(self) -> None:
        try:
            self.result = (self.batcher.submit_all if self.many else self.batcher.submit)(self.item)
        except BaseException as exc:  # noqa: BLE001 - the test asserts on it
            self.error = exc


def _busy_round(batcher: Batcher, recorder: Recorder, first_item, later_items) -> tuple[Submitter, list[Submitter]]:
    """Starts a round trip for first_item that blocks, then queues later_items behind it one by one
    (so their submission order is known), then lets the round trip finish. A list among later_items
    is one thread's submit_all."""
    gate = recorder.gate = threading.Event()
    recorder.entered.clear()
    first = Submitter(batcher, first_item)
    first.start()
    assert recorder.entered.wait(TIMEOUT)
    later = []
    queued = 0
    for item in later_items:
        submitter = Submitter(batcher, item, many=isinstance(item, list))
        submitter.start()
        later.append(submitter)
        queued += len(item) if isinstance(item, list) else 1
        wait_until_queued(batcher, queued)
    gate.set()
    for thread in [first, *later]:
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "a submitter was never served"
    return first, later


def test_a_lone_submit_is_a_batch_of_one():
    recorder = Recorder()
    batcher = Batcher("t", recorder)
    assert batcher.submit(4) == 40
    assert batcher.submit(5) == 50
    assert recorder.batches == [[4], [5]]


def test_requests_arriving_during_a_round_trip_share_the_next_one():
    recorder = Recorder()
    batcher = Batcher("t", recorder)
    first, later = _busy_round(batcher, recorder, 0, range(1, 9))
    assert recorder.batches == [[0], [1, 2, 3, 4, 5, 6, 7, 8]]
    assert first.result == 0
    assert [(s.result, s.error) for s in later] == [(item * 10, None) for item in range(1, 9)]


def test_max_batch_caps_a_batch():
    recorder = Recorder()
    batcher = Batcher("t", recorder, max_batch=3)
    _, later = _busy_round(batcher, recorder, 0, range(1, 8))
    assert recorder.batches == [[0], [1, 2, 3], [4, 5, 6], [7]]
    assert [s.result for s in later] == [item * 10 for item in range(1, 8)]


def test_an_exception_outcome_is_raised_by_its_own_request_only():
    refused = ValueError("refused: 3")
    recorder = Recorder(outcome=lambda item: refused if item == 3 else item * 10)
    batcher = Batcher("t", recorder)
    _, later = _busy_round(batcher, recorder, 0, range(1, 6))
    assert recorder.batches == [[0], [1, 2, 3, 4, 5]]
    assert [(s.item, s.result, s.error) for s in later] == [
        (1, 10, None), (2, 20, None), (3, None, refused), (4, 40, None), (5, 50, None),
    ]
    with pytest.raises(ValueError, match="refused: 3"):
        batcher.submit(3)  # the leader of its own batch raises its outcome too


def _failing_on(bad_item):
    def outcome(item):
        if item == bad_item:
            raise ConnectionError("round trip failed")
        return item * 10
    return outcome


def test_an_exception_of_process_is_raised_by_every_request_of_the_batch():
    recorder = Recorder(outcome=_failing_on(2))
    batcher = Batcher("t", recorder, max_batch=3)
    first, later = _busy_round(batcher, recorder, 0, range(1, 6))
    assert recorder.batches == [[0], [1, 2, 3], [4, 5]]
    assert first.result == 0
    assert [type(s.error) for s in later[:3]] == [ConnectionError] * 3
    assert [s.result for s in later[:3]] == [None] * 3
    # The batch after the failed one is served as usual.
    assert [(s.result, s.error) for s in later[3:]] == [(40, None), (50, None)]


def test_a_wrong_number_of_outcomes_fails_the_batch():
    batcher = Batcher("short", lambda items: items[1:])
    with pytest.raises(RuntimeError, match="short: 0 outcomes for 1 items"):
        batcher.submit(1)


def _submit_on_a_thread(batcher: Batcher, item) -> Submitter:
    # A batcher left busy by the failure would make submit wait for ever: fail instead.
    submitter = Submitter(batcher, item)
    submitter.start()
    submitter.join(TIMEOUT)
    assert not submitter.is_alive(), "the batcher is stuck"
    return submitter


def test_the_batcher_keeps_working_after_process_raised():
    recorder = Recorder(outcome=_failing_on(1))
    batcher = Batcher("t", recorder)
    assert type(_submit_on_a_thread(batcher, 1).error) is ConnectionError
    assert _submit_on_a_thread(batcher, 2).result == 20
    # The same after a failure in a round trip that others were queued behind.
    first, later = _busy_round(batcher, recorder, 1, [3, 4])
    assert type(first.error) is ConnectionError
    assert [s.result for s in later] == [30, 40]
    assert _submit_on_a_thread(batcher, 5).result == 50


@pytest.mark.parametrize("together", [1, 3], ids=["submit", "submit_all"])
def test_many_threads_each_get_their_own_results(together):
    batcher = Batcher("t", lambda items: [item * 10 for item in items], max_batch=8)
    start = threading.Barrier(16)

    def many(offset: int) -> list:
        start.wait()
        got: list = []
        for i in range(0, 198, together):
            items = [offset + i + k for k in range(together)]
            got.extend([batcher.submit(items[0])] if together == 1 else batcher.submit_all(items))
        return got

    results: dict[int, list] = {}
    threads = [threading.Thread(target=lambda o=o: results.__setitem__(o, many(o))) for o in range(0, 16000, 1000)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive()
    assert sorted(results) == list(range(0, 16000, 1000))
    for offset, got in results.items():
        assert got == [(offset + i) * 10 for i in range(198)]


def test_after_a_shared_round_the_next_one_lingers_for_requests_on_their_way():
    recorder = Recorder()
    batcher = Batcher("t", recorder, linger_seconds=2)
    _busy_round(batcher, recorder, 0, [1, 2])  # a round of two: load
    lead = Submitter(batcher, 3)
    lead.start()
    wait_until_queued(batcher, 1)
    close_behind = Submitter(batcher, 4)  # arrives while the leader lingers
    close_behind.start()
    for thread in (lead, close_behind):
        thread.join(TIMEOUT)
    assert recorder.batches[-1] == [3, 4]
    assert (lead.result, close_behind.result) == (30, 40)


def test_a_request_at_a_quiet_moment_does_not_linger():
    recorder = Recorder()
    batcher = Batcher("t", recorder, linger_seconds=TIMEOUT * 2)
    started = time.monotonic()
    assert batcher.submit(1) == 10  # nothing before it shared a round: it goes at once
    assert batcher.submit(2) == 20
    assert time.monotonic() - started < TIMEOUT  # a linger would have taken twice as long
    assert recorder.batches == [[1], [2]]


def test_one_threads_items_share_a_round_trip_with_the_others_waiting():
    recorder = Recorder()
    batcher = Batcher("t", recorder)
    assert batcher.submit_all([1, 2]) == [10, 20]  # a quiet moment: one round for both
    _, later = _busy_round(batcher, recorder, 0, [3, [4, 5, 6], 7])
    assert recorder.batches == [[1, 2], [0], [3, 4, 5, 6, 7]]
    assert [s.result for s in later] == [30, [40, 50, 60], 70]
    assert batcher.submit_all([]) == []


def test_one_threads_items_over_max_batch_take_rounds_in_turn():
    recorder = Recorder()
    batcher = Batcher("t", recorder, max_batch=2)
    _, later = _busy_round(batcher, recorder, 0, [[1, 2, 3, 4, 5], 6])
    assert recorder.batches == [[0], [1, 2], [3, 4], [5, 6]]
    assert [s.result for s in later] == [[10, 20, 30, 40, 50], 60]
    assert batcher.submit_all([7, 8, 9]) == [70, 80, 90]


def test_an_error_among_one_threads_items_is_raised_once_all_are_served():
    refused = ValueError("refused: 2")
    recorder = Recorder(outcome=lambda item: refused if item == 2 else item * 10)
    batcher = Batcher("t", recorder, max_batch=2)
    _, later = _busy_round(batcher, recorder, 0, [[1, 2, 3], 4])
    assert recorder.batches == [[0], [1, 2], [3, 4]]
    assert (later[0].result, later[0].error) == (None, refused)
    assert later[1].result == 40  # served after the failed item's thread had its round
    assert _submit_on_a_thread(batcher, 5).result == 50
