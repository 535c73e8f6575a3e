"""The rate card: what a text-message fragment and a letter cost, each price valid from a moment on.

A price change is a new row with a later `valid_from` (a UTC day); the rows before it stay, so
notifications created before the change keep the price of their day, and the table is the history
of the prices.
"""
from __future__ import annotations

import datetime

import peewee

from models.db import BaseModel, utcnow, uuid_pk

SMS, LETTER = "sms", "letter"
STANDARD_RATES = "standard"  # the rate table of every service without an agreement of its own
# What the table is seeded with (models/migrations.py): list prices before any free allowance.
DEFAULT_VALID_FROM = datetime.date(2020, 1, 1)
DEFAULT_SMS_RATE = "0.0227"
DEFAULT_LETTER_RATES = {  # postage: (first sheet, each further sheet)
    "second": ("0.68", "0.05"),
    "first": ("1.22", "0.05"),
    "economy": ("0.59", "0.05"),
    "europe": ("1.63", "0.05"),
    "rest-of-world": ("1.63", "0.05"),
}


class Rate(BaseModel):
    id = uuid_pk()
    # Which table the price belongs to: STANDARD_RATES, or the name of an organisation's agreement
    # (models/organisation.py); a kind an agreement does not price is priced from the standard table.
    rate_table = peewee.CharField(default=STANDARD_RATES)
    notification_type = peewee.CharField()  # SMS or LETTER
    postage = peewee.CharField(null=True)  # letters: the postage class; None for sms
    valid_from = peewee.DateField()  # the price applies to notifications created on this UTC day and after
    # sms: one fragment to a domestic number (international ones multiply it by the notification's
    # rate multiplier); letters: the first sheet, postage included.
    rate = peewee.DecimalField(max_digits=12, decimal_places=4)
    sheet_rate = peewee.DecimalField(max_digits=12, decimal_places=4, null=True)  # letters: each further sheet
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "rate"
        indexes = ((("rate_table", "notification_type", "postage", "valid_from"), True),)


def seed_default_rates() -> None:
    """The default rate card, when the table is empty."""
    if Rate.select().exists():
        return
    rows = [{"notification_type": SMS, "postage": None, "valid_from": DEFAULT_VALID_FROM, "rate": DEFAULT_SMS_RATE}]
    rows += [{"notification_type": LETTER, "postage": postage, "valid_from": DEFAULT_VALID_FROM, "rate": first,
              "sheet_rate": further} for postage, (first, further) in DEFAULT_LETTER_RATES.items()]
    for row in rows:
        Rate.create(**row)
