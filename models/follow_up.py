"""The follow-up outbox (step 215): a queue message written in the transaction of the change it
follows, deleted once the broker has it. Read and written only by pipeline/infrastructure/follow_ups.py."""
from __future__ import annotations

import peewee

from models.db import BaseModel, JSONField, utcnow


class FollowUp(BaseModel):
    id = peewee.BigAutoField()
    # Dramatiq's message as the actor would send it: by names, not by the actor, so a relay of another
    # release sends a message whose actor it does not know.
    queue_name = peewee.CharField()
    actor_name = peewee.CharField()
    args = JSONField()
    created_at = peewee.DateTimeField(default=utcnow)  # the periodic relay sends rows older than its grace

    class Meta:
        table_name = "follow_up"
