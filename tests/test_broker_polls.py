"""How often worker consumers look at empty queues: the send path at once, the rest quietly."""
from __future__ import annotations

import pytest

from config import get_settings, redis_url
from workers.broker import Broker


@pytest.fixture
def polled() -> Broker:
    return Broker(idle_poll_ms=100, quiet_poll_ms=1000, url=redis_url(get_settings()), namespace="polls-test")


@pytest.mark.parametrize("queue", ["send-sms", "send-email", "send-job-sms", "send-job-email", "callbacks",
                                   "simulated-gateway", "jobs"])
def test_the_send_path_s_queues_are_looked_at_every_idle_poll(polled, queue):
    assert polled.consume(queue, timeout=1000).timeout == 100


@pytest.mark.parametrize("queue", ["periodic", "reports", "create-letter-pdf", "virus-scan", "send-letters",
                                   "send-test-key", "send-sms.DQ", "callbacks.DQ"])
def test_other_queues_and_delay_queues_are_looked_at_every_quiet_poll(polled, queue):
    assert polled.consume(queue, timeout=5000).timeout == 1000


def test_a_worker_timeout_shorter_than_the_poll_still_bounds_it(polled):
    assert polled.consume("periodic", timeout=300).timeout == 300
