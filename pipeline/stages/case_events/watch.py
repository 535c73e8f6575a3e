"""Whether each service's subscription at Open Notificaties still holds, checked periodically (issue 52: the
service "shows whether it holds"), not only when a member asks: an abonnement removed or changed at Open
Notificaties, or credentials it no longer takes, mean its citizens hear nothing, with nothing failing here.

workers/case_events.py's hourly job reads back every subscribed link (subscription.check) and keeps what
Open Notificaties said and when (subscription.keep), those checked longest ago first, within a time budget:
a run starts no check after BUDGET_SECONDS (each is bounded by the ZGW client's deadline), and what it
did not reach is the next run's first. A link checked less than RECHECK_AFTER ago (by a member, by a run
cut short) waits for the next run. The states kept are what /metrics counts (`states`) and an alert watches.
"""
from __future__ import annotations

import datetime
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import peewee

from models.case_event import CaseEventLink
from models.service import Service
from pipeline.domain import case_events as domain
from pipeline.stages.case_events import subscription

CHECK_EVERY_SECONDS = 3600
RECHECK_AFTER = datetime.timedelta(minutes=50)
BUDGET_SECONDS = 600.0
CHECKED_AT_ONCE = 1000


def due(now: datetime.datetime) -> list[CaseEventLink]:
    """The subscribed links not checked for RECHECK_AFTER, checked longest ago first, with their services."""
    return list(CaseEventLink.select(CaseEventLink, Service).join(Service).where(
        CaseEventLink.subscription_url.is_null(False) & CaseEventLink.nrc_root.is_null(False)
        & (CaseEventLink.subscription_checked_at.is_null()
           | (CaseEventLink.subscription_checked_at < now - RECHECK_AFTER))).order_by(
        CaseEventLink.subscription_checked_at.asc(nulls="first"), CaseEventLink.id).limit(CHECKED_AT_ONCE))


def check_due(now: datetime.datetime, *, until: float, clock: Callable[[], float] = time.monotonic) -> Counter[str]:
    """Check the links due until clock() reaches until; the states found, counted."""
    found: Counter[str] = Counter()
    for link in due(now):
        if clock() >= until:
            break
        checked = subscription.check(link, subscription.callback_url(link), link.service.name)
        if subscription.keep(link, checked, checked_url=link.subscription_url):
            found[checked.state] += 1
    return found


def states() -> dict[str, int]:
    """How many links are in each subscription state, as last kept (0 for a state none is in); links
    never subscribed are in none."""
    counted = dict.fromkeys(domain.SUBSCRIPTION_STATES, 0)
    rows: Any = CaseEventLink.select(CaseEventLink.subscription_state, peewee.fn.COUNT(CaseEventLink.id)).where(
        CaseEventLink.subscription_state.is_null(False)).group_by(CaseEventLink.subscription_state).tuples()
    for state, count in rows:
        if state in counted:
            counted[state] = count
    return counted
