"""Rate-limit tokens leased per process from Redis, and the batched Redis counters behind them (the
fast implementation of pipeline/infrastructure/throughput)."""
from __future__ import annotations

import threading
import time
import uuid

import pytest

from pipeline.domain.errors import RateLimitError
from pipeline.infrastructure import redis_state
from pipeline.infrastructure.throughput import RATE_WINDOW_SECONDS
from pipeline.infrastructure.throughput.fast import counters, leases


@pytest.fixture(autouse=True)
def _own_leases(monkeypatch):
    """Each test starts as a fresh process: no tokens leased yet."""
    monkeypatch.setattr(leases, "_leases", {})


@pytest.fixture
def service_id() -> str:
    # The counts below must fall in one fixed 60-second window.
    if time.time() % 60 > 50:
        time.sleep(60 - time.time() % 60)
    return str(uuid.uuid4())


def _accepted(service_id: str, limit: int, calls: int, *, between=lambda: None) -> int:
    accepted = 0
    for _ in range(calls):
        try:
            leases.check_rate_limit(service_id, "live", limit)
            accepted += 1
        except RateLimitError:
            pass
        between()
    return accepted


def _redis_count(service_id: str) -> int:
    window = int(time.time()) // RATE_WINDOW_SECONDS
    return int(redis_state.client().get(redis_state.namespaced("rate", service_id, "live", window)) or 0)


@pytest.mark.parametrize("limit, size", [
    (0, 1), (1, 1), (199, 1), (200, 2), (299, 2), (1000, 10), (3000, 30),
    (10_000, 100), (10_099, 100), (250_000, 100),
])
def test_lease_size(limit, size):
    assert leases.lease_size(limit) == size


def test_exactly_the_limit_is_accepted(service_id):
    for _ in range(1000):
        leases.check_rate_limit(service_id, "live", 1000)
    with pytest.raises(RateLimitError) as refused:
        leases.check_rate_limit(service_id, "live", 1000)
    assert refused.value.messages == ["Exceeded rate limit for key type live of 1000 requests per 60 seconds"]
    # Other key types and services have windows of their own.
    leases.check_rate_limit(service_id, "team", 1000)
    leases.check_rate_limit(str(uuid.uuid4()), "live", 1000)


def test_a_limit_that_is_not_a_multiple_of_the_lease(service_id):
    assert _accepted(service_id, 1234, 1300) == 1234


def test_small_limits_count_every_request_in_redis(service_id):
    assert _accepted(service_id, 5, 8) == 5
    assert _redis_count(service_id) == 6  # refusing once the limit is reached costs no more counts


def test_a_process_takes_tokens_from_redis_a_lease_at_a_time(service_id):
    for calls in (1, 9, 10, 11, 37):
        leases._leases.clear()
        service = f"{service_id}-{calls}"
        assert _accepted(service, 1000, calls) == calls
        assert calls <= _redis_count(service) <= calls + leases.lease_size(1000) - 1
        assert _redis_count(service) % 10 == 0


def test_processes_together_never_accept_more_than_the_limit(service_id):
    accepted = _accepted(service_id, 1000, 505)
    leases._leases.clear()  # a second process: the first one's unused tokens are not its own
    accepted += _accepted(service_id, 1000, 1000)
    assert 1000 - leases.lease_size(1000) <= accepted <= 1000


def test_interleaved_processes_never_accept_more_than_the_limit(service_id, monkeypatch):
    processes = [{}, {}, {}]
    accepted = 0
    for call in range(1500):
        monkeypatch.setattr(leases, "_leases", processes[call % 3])
        accepted += _accepted(service_id, 1000, 1)
    # Each process may hold at most one lease's worth of tokens it never handed out.
    assert 1000 - 3 * leases.lease_size(1000) <= accepted <= 1000


def _from_threads(threads: int, work) -> list:
    start = threading.Barrier(threads)
    results: list = [None] * threads

    def run(index: int) -> None:
        start.wait()
        results[index] = work()

    running = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(60)
        assert not thread.is_alive()
    return results


def _request_work() -> None:
    time.sleep(0)  # the rest of a request (its INSERT, its enqueue) lets other threads run


def test_threads_of_one_process_never_accept_more_than_the_limit(service_id):
    accepted = _from_threads(8, lambda: _accepted(service_id, 1000, 200, between=_request_work))
    assert 0 < sum(accepted) <= 1000


def test_threads_of_one_process_accept_the_whole_limit(service_id):
    accepted = _from_threads(8, lambda: _accepted(service_id, 1000, 200, between=_request_work))
    assert sum(accepted) == 1000


def test_concurrent_counts_get_distinct_gap_free_values():
    key = redis_state.namespaced("test-count", uuid.uuid4())
    values = _from_threads(8, lambda: [counters.count((key, 60, 1))[0] for _ in range(50)])
    assert sorted(v for mine in values for v in mine) == list(range(1, 401))
    for mine in values:
        assert mine == sorted(mine)  # a thread's own counts only grow
    assert int(redis_state.client().get(key)) == 400
    assert 0 < redis_state.client().ttl(key) <= 60


def test_a_count_of_several_counters_and_amounts():
    first, second = (redis_state.namespaced("test-count", uuid.uuid4()) for _ in range(2))
    assert counters.count((first, 60, 1), (second, 60, 5)) == [1, 5]
    assert counters.count((second, 60, 2)) == [7]
    values = _from_threads(4, lambda: [tuple(counters.count((first, 60, 1), (second, 60, 3))) for _ in range(25)])
    firsts = sorted(a for mine in values for a, _ in mine)
    seconds = sorted(b for mine in values for _, b in mine)
    assert firsts == list(range(2, 102))
    assert seconds == list(range(10, 310, 3))
