"""Dead-lettered messages: shown with actor, arguments, error and retries; re-queued or dropped."""
from __future__ import annotations

import dramatiq
import pytest

from tests.conftest import running_worker, wait_for
from workers import dead_letters, queue_stats

pytestmark = pytest.mark.skipif(not dead_letters.supported(), reason="dead-letter inspection reads Redis")
attempts: list[str] = []
healed: set[str] = set()


@dramatiq.actor(queue_name="ops-test-dead", max_retries=1, min_backoff=10, max_backoff=10)
def flaky(job_id: str) -> None:
    attempts.append(job_id)
    if job_id not in healed:
        raise ValueError(f"cannot do {job_id} yet (attempt {attempts.count(job_id)})")


def _dead_count() -> int:
    return next(q.dead for q in queue_stats.queue_stats() if q.name == "ops-test-dead")


def test_dead_letters_are_shown_requeued_and_dropped():
    attempts.clear()
    with running_worker():
        for job in ("a", "b", "c"):
            flaky.send(job)
        wait_for(lambda: _dead_count() == 3)
    listed = {d.args[0]: d for d in dead_letters.list_dead("ops-test-dead")}
    assert set(listed) == {"a", "b", "c"}
    a = listed["a"]
    # The last attempt's error and traceback, not those of the retried one before it that Dramatiq keeps.
    assert (a.actor, a.retries, a.error) == ("flaky", 1, "ValueError: cannot do a yet (attempt 2)")
    assert a.traceback.startswith("Traceback") and "in flaky" in a.traceback

    healed.add("a")
    assert dead_letters.requeue("ops-test-dead", a.message_id) is True
    assert dead_letters.requeue("ops-test-dead", a.message_id) is False  # a second click finds it gone
    assert dead_letters.drop("ops-test-dead", listed["b"].message_id) is True
    with running_worker():
        wait_for(lambda: attempts.count("a") == 3)  # two attempts before, one now
    assert _dead_count() == 1 and [d.args for d in dead_letters.list_dead("ops-test-dead")] == [["c"]]

    healed.add("c")
    assert dead_letters.requeue_all("ops-test-dead") == 1
    with running_worker():
        wait_for(lambda: attempts.count("c") == 3)
    assert _dead_count() == 0 and attempts.count("b") == 2
    assert dead_letters.drop_all("ops-test-dead") == 0
