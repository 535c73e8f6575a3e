"""Usage and cost per service and month: what was sent with live keys, priced from the rate card.

The billable notifications of each day come from core/daily_figures.py: closed days from the daily
rollup, the days since from the notifications themselves, purged days from the purge's billing counts.
A notification counts once it has its billable units (pipeline/daily_rollup.is_billable).
"""
from __future__ import annotations

import datetime
from typing import Any

from core.daily_figures import billing_counts
from pipeline.prices import letter_cost, sms_cost


def _month(year: int, month: int) -> tuple[datetime.date, datetime.date]:
    return datetime.date(year, month, 1), datetime.date(year + (month == 12), month % 12 + 1, 1)


def monthly_usage(service_id: object, year: int, month: int) -> dict[str, Any]:
    start, end = _month(year, month)
    sms = {"notifications": 0, "billable_units": 0, "cost_in_pounds": 0.0}
    email = {"notifications": 0, "cost_in_pounds": 0.0}
    letter = {"notifications": 0, "billable_sheets": 0, "cost_in_pounds": 0.0}
    unpriced = 0
    for (_, day, kind, postage, multiplier, units), n in billing_counts(service_id, start, end).items():
        if kind == "email":
            email["notifications"] += n
            continue
        if kind == "sms":
            sms["notifications"] += n
            sms["billable_units"] += n * units * multiplier
            priced = sms_cost(units, multiplier, day)
            cost = priced[0] if priced else None
            target = sms
        else:
            letter["notifications"] += n
            letter["billable_sheets"] += n * units
            cost = letter_cost(postage, units, day)
            target = letter
        if cost is None:
            unpriced += n
        else:
            target["cost_in_pounds"] = round(target["cost_in_pounds"] + n * cost, 4)
    return {
        "service_id": str(service_id), "month": f"{year:04d}-{month:02d}", "sms": sms, "email": email,
        "letter": letter, "total_cost_in_pounds": round(sms["cost_in_pounds"] + letter["cost_in_pounds"], 4),
        "unpriced_notifications": unpriced,  # no rate was valid on their day: add one to price them
    }
