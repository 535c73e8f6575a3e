"""Delivery receipts that arrived before we knew the message they are about, kept for a while."""
from __future__ import annotations

import peewee

from models.db import BaseModel, JSONField, utcnow


class HeldReceipt(BaseModel):
    """A receipt naming a provider message id we do not know yet: a gateway may report before its
    answer to our send arrives, and only that answer tells us its id. Applied once the id is
    recorded (pipeline/stages/receipts.py), dropped after RECEIPT_HOLD_SECONDS."""

    id = peewee.AutoField()
    provider = peewee.CharField()
    provider_id = peewee.CharField(index=True)  # the provider's message id
    receipt = JSONField()  # the body as posted
    received_at = peewee.DateTimeField(default=utcnow, index=True)
