"""Sends whose outcome is unknown: the request went out whole and no answer came
(docs/architecture.md#unknown-outcomes-wait-for-their-receipt). Each keeps
its claim, so no worker sends it again blind, and is settled by the first of:
- the provider's receipt, which names our reference (pipeline/stages/receipts.py);
- the provider's lookup, where it has one (pipeline/infrastructure/providers/sms/lookups.py): asked once the send is
  SETTLE_AFTER old, "found" records it as sent, "not there" gives the claim back and the text is
  sent again;
- OUTCOME_UNKNOWN_TIMEOUT_SECONDS, after which the stuck sweep makes it technical-failure.
How many wait, and since when, shows on the worker dashboard and in /metrics.

A claim is also held while its send is in flight; one older than the longest a send can take
(in_flight_bound) is one whose outcome is unknown, or whose worker died mid-call.
"""
from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import cast

from peewee import fn

from config import Settings
from models.notification import Notification, unindexed_status
from pipeline.domain import statuses
from pipeline.infrastructure.providers.sms import pacing
from pipeline.infrastructure.providers.sms.lookups import Found, Lookup, NotThere
from pipeline.stages import dispatch

# The receipt has this long to come first; a provider asked sooner may not have the text recorded yet.
SETTLE_AFTER = datetime.timedelta(minutes=2)
SETTLE_BATCH = 200  # texts looked up per run, oldest first
IN_FLIGHT_MARGIN_SECONDS = 5.0
CHANNELS = ("sms", "email")


@dataclass(frozen=True)
class Waiting:
    channel: str
    count: int
    oldest_seconds: float  # how long the oldest has waited since its send began


@dataclass
class Settled:
    found: list[str] = field(default_factory=list)  # recorded as sent
    not_there: list[Notification] = field(default_factory=list)  # claims given back: to be sent again


def in_flight_bound(settings: Settings) -> datetime.timedelta:
    """The longest a claimed send can be in flight: its permit's wait, then the call's timeout."""
    timeout = max(settings.sms_gateway_timeout_seconds, settings.smtp_timeout_seconds)
    return datetime.timedelta(seconds=pacing.MAX_WAIT_SECONDS + timeout + IN_FLIGHT_MARGIN_SECONDS)


def _claimed_before(moment: datetime.datetime) -> object:
    return ((Notification.status == statuses.CREATED) & Notification.notification_type.in_(CHANNELS)
            & (Notification.dispatch_started_at < moment))


def waiting(now: datetime.datetime, settings: Settings) -> list[Waiting]:
    """The sends waiting on an unknown outcome, per channel (every channel, 0 where none wait)."""
    rows = cast(Iterable[tuple[str, int, object]], (
        Notification.select(Notification.notification_type, fn.COUNT(Notification.id),
                            fn.MIN(Notification.dispatch_started_at))
        .where(_claimed_before(now - in_flight_bound(settings)))
        .group_by(Notification.notification_type).tuples()))
    found = {channel: (count, Notification.dispatch_started_at.python_value(oldest))
             for channel, count, oldest in rows}
    return [Waiting(channel, found.get(channel, (0, None))[0],
                    (now - found[channel][1]).total_seconds() if channel in found else 0.0)
            for channel in CHANNELS]


def settle(now: datetime.datetime, lookups: Mapping[str, Lookup], limit: int = SETTLE_BATCH) -> Settled:
    """Ask each gateway with a lookup (`lookups`, by name) for its texts of unknown outcome."""
    settled = Settled()
    if not lookups:
        return settled
    rows = (Notification.select(Notification.id, Notification.sent_by, Notification.dispatch_started_at,
                                Notification.key_type, Notification.notification_type, Notification.scheduled_for)
            .where(_claimed_before(now - SETTLE_AFTER) & (Notification.notification_type == "sms")
                   & Notification.sent_by.in_(list(lookups)))
            .order_by(Notification.dispatch_started_at).limit(limit))
    for row in rows:
        assert row.sent_by is not None  # asked for above
        answer = lookups[row.sent_by](str(row.id))
        if isinstance(answer, Found) and _record_found(row, answer):
            settled.found.append(str(row.id))
        elif isinstance(answer, NotThere) and _give_back(row):
            settled.not_there.append(row)
    return settled


def _record_found(row: Notification, answer: Found) -> bool:
    notification = Notification.get_or_none((Notification.id == row.id) & (unindexed_status() == statuses.CREATED))
    if notification is None:
        return False  # its receipt came meanwhile
    return dispatch.record_sent(notification, dispatch.Dispatched(provider=str(row.sent_by),
                                                                  reference=answer.provider_id))


def _give_back(row: Notification) -> bool:
    """The claim, back to nobody, unless a receipt or another run moved the text meanwhile; the
    gateway is forgotten, so the text goes wherever the rotation sends it."""
    return Notification.update(dispatch_started_at=None, sent_by=None, retry_at=None).where(
        (Notification.id == row.id) & (unindexed_status() == statuses.CREATED)
        & (Notification.dispatch_started_at == row.dispatch_started_at)).execute() == 1
