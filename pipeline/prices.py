"""The rate card: what one text-message fragment and one letter cost, in pounds.

The Notification resource reports `cost_in_pounds` and `cost_details` from these. They are list prices
before any free allowance (the spec says the allowance is not taken into account), kept in one place so
an operator changes one file when the rates change.
"""
from __future__ import annotations

SMS_RATE_POUNDS = 0.0227  # one fragment to a domestic number; international ones multiply this

# Letters: the price of the first sheet and of each further sheet, per postage class.
LETTER_PRICES_POUNDS: dict[str, tuple[float, float]] = {
    "second": (0.68, 0.05),
    "first": (1.22, 0.05),
    "economy": (0.59, 0.05),
    "europe": (1.63, 0.05),
    "rest-of-world": (1.63, 0.05),
}


def sms_cost(fragments: int, rate_multiplier: int) -> float:
    # Rounded so that 3 * 0.0227 reads 0.0681 on the wire, not 0.06810000000000001.
    return round(fragments * rate_multiplier * SMS_RATE_POUNDS, 4)


def letter_cost(postage: str, sheets: int) -> float | None:
    """None for a postage class without a price (the cost is then not ready)."""
    prices = LETTER_PRICES_POUNDS.get(postage)
    if prices is None or sheets < 1:
        return None
    first, further = prices
    return round(first + (sheets - 1) * further, 4)
