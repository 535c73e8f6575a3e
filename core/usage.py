"""Usage and cost per service and month: what was sent with live keys, priced from the rate card.

The billable notifications of each day come from core/daily_figures.py: closed days from the daily
rollup, the days since from the notifications themselves, purged days from the purge's billing counts.
A notification counts once it has its billable units (pipeline/stages/daily_rollup.is_billable).
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from core.daily_figures import BILLED_KEY_TYPES, billing_counts
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.organisation import rate_table_of
from models.prices import letter_cost, sms_cost
from pipeline.stages.fallback import FALLS_BACK_ON


@dataclass
class SmsUsage:
    notifications: int = 0
    billable_units: int = 0  # fragments times the rate multiplier
    cost_in_pounds: float = 0.0


@dataclass
class EmailUsage:
    notifications: int = 0
    cost_in_pounds: float = 0.0


@dataclass
class LetterUsage:
    notifications: int = 0
    billable_sheets: int = 0
    cost_in_pounds: float = 0.0


@dataclass
class MonthlyUsage:
    service_id: str
    month: str  # 2026-11
    sms: SmsUsage = field(default_factory=SmsUsage)
    email: EmailUsage = field(default_factory=EmailUsage)
    letter: LetterUsage = field(default_factory=LetterUsage)
    total_cost_in_pounds: float = 0.0
    unpriced_notifications: int = 0  # no rate was valid on their day: add one to price them


def _month(year: int, month: int) -> tuple[datetime.date, datetime.date]:
    return datetime.date(year, month, 1), datetime.date(year + (month == 12), month % 12 + 1, 1)


def monthly_usage(service_id: object, year: int, month: int) -> MonthlyUsage:
    start, end = _month(year, month)
    usage = MonthlyUsage(service_id=str(service_id), month=f"{year:04d}-{month:02d}")
    sms, email, letter = usage.sms, usage.email, usage.letter
    rates = rate_table_of(service_id)  # the service's organisation's agreement, or the standard table
    target: SmsUsage | LetterUsage
    for (_, day, kind, postage, multiplier, units), n in billing_counts(service_id, start, end).items():
        if kind == "email":
            email.notifications += n
            continue
        if kind == "sms":
            sms.notifications += n
            sms.billable_units += n * units * multiplier
            priced = sms_cost(units, multiplier, day, rates)
            cost = priced[0] if priced else None
            target = sms
        else:
            letter.notifications += n
            letter.billable_sheets += n * units
            cost = letter_cost(postage, units, day, rates)
            target = letter
        if cost is None:
            usage.unpriced_notifications += n
        else:
            target.cost_in_pounds = round(target.cost_in_pounds + n * cost, 4)
    usage.total_cost_in_pounds = round(sms.cost_in_pounds + letter.cost_in_pounds, 4)
    return usage


def fell_back(service_id: object, year: int, month: int) -> int:
    """How many of the month's billed messages failed and had another sent instead (issue 44): each
    of those is counted as itself above, this says how many of them fell back. Read from the messages
    still held (a purged month counts none), from the chains' links joined to their messages."""
    start, end = _month(year, month)
    return (NotificationFallback.select().join(Notification).where(
        NotificationFallback.sent_as.is_null(False)
        & (Notification.service == service_id) & Notification.key_type.in_(BILLED_KEY_TYPES)
        & Notification.notification_type.in_(("sms", "email")) & Notification.status.in_(sorted(FALLS_BACK_ON))
        & (Notification.created_at >= start) & (Notification.created_at < end)).count())
