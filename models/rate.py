"""The rate card: what a text-message fragment and a letter cost, each price valid from a moment on.

A price change is a new row with a later `valid_from` (a UTC day); the rows before it stay, so
notifications created before the change keep the price of their day, and the table is the history
of the prices.
"""
from __future__ import annotations

import peewee

from models.db import BaseModel, utcnow, uuid_pk

SMS, LETTER = "sms", "letter"
STANDARD_RATES = "standard"  # the rate table of every service without an agreement of its own


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

