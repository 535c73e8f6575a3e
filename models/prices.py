"""The rate card in force: what a text-message fragment and a letter cost, in pounds, at a moment.

The prices live in the rate table (models/rate.py; seeded with defaults, changed through the admin
API). The Notification resource reports `cost_in_pounds` and `cost_details` from them, priced at the
UTC day the notification was created. They are list prices before any free allowance (the spec says
the allowance is not taken into account). Each process keeps the table for CACHE_TTL_SECONDS: it is
read on every notification the API returns.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass

from models import cache
from models.rate import LETTER, SMS, STANDARD_RATES, Rate


@dataclass(frozen=True)
class Price:
    valid_from: datetime.date
    rate: float  # sms: one domestic fragment; letters: the first sheet, postage included
    sheet_rate: float | None  # letters: each further sheet


def _card() -> dict[tuple[str, str, str | None], list[Price]]:
    def load() -> dict[tuple[str, str, str | None], list[Price]]:
        card: dict[tuple[str, str, str | None], list[Price]] = {}
        for row in Rate.select().order_by(Rate.valid_from):
            card.setdefault((row.rate_table, row.notification_type, row.postage), []).append(Price(
                row.valid_from, float(row.rate), float(row.sheet_rate) if row.sheet_rate is not None else None))
        return card

    return cache.cached(("rate-card",), load)


def price_at(notification_type: str, postage: str | None, at: datetime.date | datetime.datetime,
             rate_table: str = STANDARD_RATES) -> Price | None:
    """The price valid on the day of `at`: the latest one that started on or before it; None when none had.
    A rate table (an organisation's agreement) that does not price this kind leaves it to the standard one."""
    if isinstance(at, datetime.datetime):
        at = at.date()
    card = _card()
    prices = card.get((rate_table, notification_type, postage)) or card.get(
        (STANDARD_RATES, notification_type, postage))
    found = None
    for price in prices or []:
        if price.valid_from > at:
            break
        found = price
    return found


def sms_cost(fragments: int, rate_multiplier: int, at: datetime.date | datetime.datetime,
             rate_table: str = STANDARD_RATES) -> tuple[float, float] | None:
    """(cost, the fragment rate it used); None when no rate was valid then."""
    price = price_at(SMS, None, at, rate_table)
    if price is None:
        return None
    # Rounded so that 3 * 0.0227 reads 0.0681 on the wire, not 0.06810000000000001.
    return round(fragments * rate_multiplier * price.rate, 4), price.rate


def letter_cost(postage: str, sheets: int, at: datetime.date | datetime.datetime,
                rate_table: str = STANDARD_RATES) -> float | None:
    """None for a postage class without a price then (the cost is then not ready)."""
    price = price_at(LETTER, postage, at, rate_table)
    if price is None or sheets < 1:
        return None
    return round(price.rate + (sheets - 1) * (price.sheet_rate or 0.0), 4)
