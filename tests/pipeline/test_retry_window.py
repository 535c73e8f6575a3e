"""When a send that reached no provider is tried again, and when it stops being tried."""
from __future__ import annotations

import dataclasses
import datetime

from config import get_settings
from models.notification import Notification
from pipeline.domain.retry_window import next_attempt

ACCEPTED = datetime.datetime(2026, 11, 26, 9, 0, 0)


def _settings(**changes: int):
    return dataclasses.replace(get_settings(), provider_min_backoff_ms=5_000, provider_max_backoff_ms=600_000,
                               send_retry_window_seconds=4 * 3600, **changes)


def _after(notification: Notification, seconds: float, draw: float = 0.5) -> float | None:
    now = ACCEPTED + datetime.timedelta(seconds=seconds)
    found = next_attempt(notification, now, _settings(), draw)
    return None if found is None else (found - now).total_seconds()


def test_the_wait_grows_with_the_time_waited_between_the_backoff_bounds():
    sent = Notification(created_at=ACCEPTED, scheduled_for=None)
    assert _after(sent, 0) == 5.0  # at least the minimum backoff
    assert _after(sent, 60) == 30.0  # half as long again as it has waited
    assert _after(sent, 2 * 3600) == 600.0  # at most the maximum backoff
    assert _after(sent, 60, draw=0.0) == 22.5 and _after(sent, 60, draw=0.999) < 37.5  # spread a quarter either way


def test_the_window_counts_from_when_the_send_was_due_and_its_last_try_falls_on_its_end():
    scheduled = Notification(created_at=ACCEPTED, scheduled_for=ACCEPTED + datetime.timedelta(hours=1))
    assert _after(scheduled, 3600 + 60) == 30.0
    assert _after(scheduled, 5 * 3600 - 100) == 100.0  # capped to the window's end
    assert _after(scheduled, 5 * 3600) is None
    assert _after(Notification(created_at=ACCEPTED, scheduled_for=None), 4 * 3600) is None
