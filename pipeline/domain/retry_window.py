"""When a send that certainly reached no provider is tried again: an outage is waited out.

A provider that refuses for a while (5xx, 429, a circuit breaker that has taken every SMS gateway out
of rotation, an SMTP relay that is down) is tried again after a delay that grows with how long the send
has waited already, half as long again, between the provider backoff settings' bounds, until
SEND_RETRY_WINDOW_SECONDS (4 hours, as long as GOV.UK Notify retries) after the send was due. After
that it is a technical failure. Only a send that reached no provider waits here: one whose outcome is
unknown waits for its receipt instead (docs/architecture.md#unknown-outcomes-wait-for-their-receipt).
"""
from __future__ import annotations

import datetime
from typing import Protocol

GROWTH = 0.5  # the next wait is this share of the time waited so far
JITTER = 0.25  # each wait is spread by up to this share either way, so a recovered provider is not stormed


class Send(Protocol):
    """What the window reads of a send (a notification's row); naive UTC times, as stored."""

    @property
    def created_at(self) -> datetime.datetime: ...
    @property
    def scheduled_for(self) -> datetime.datetime | None: ...


class Bounds(Protocol):
    """The settings the window is made of (config.Settings has them)."""

    @property
    def send_retry_window_seconds(self) -> int: ...
    @property
    def provider_min_backoff_ms(self) -> int: ...
    @property
    def provider_max_backoff_ms(self) -> int: ...


def due_at(notification: Send) -> datetime.datetime:
    """When the send was due: its schedule, else its acceptance."""
    if notification.scheduled_for is not None and notification.scheduled_for > notification.created_at:
        return notification.scheduled_for
    return notification.created_at


def next_attempt(notification: Send, now: datetime.datetime, settings: Bounds,
                 draw: float) -> datetime.datetime | None:
    """When to try again (`draw` in [0, 1) spreads it), or None once the window has passed."""
    deadline = due_at(notification) + datetime.timedelta(seconds=settings.send_retry_window_seconds)
    if now >= deadline:
        return None
    waited_ms = (now - due_at(notification)).total_seconds() * 1000
    delay_ms = min(max(waited_ms * GROWTH, settings.provider_min_backoff_ms), settings.provider_max_backoff_ms)
    delay_ms *= 1 + JITTER * (2 * draw - 1)
    return min(now + datetime.timedelta(milliseconds=delay_ms), deadline)
