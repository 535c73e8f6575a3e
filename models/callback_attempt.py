"""Every attempt to deliver a callback to a service, kept 7 days so operators can see what arrived."""
from __future__ import annotations

import peewee

from models.db import BaseModel, utcnow
from models.service import Service


class CallbackAttempt(BaseModel):
    id = peewee.BigAutoField()
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)
    kind = peewee.CharField()  # "delivery-status" or "inbound-sms"
    # The notification (delivery-status) or received text (inbound-sms) reported on. Not a foreign key:
    # the attempts outlive a purged notification by up to 7 days.
    subject_id = peewee.UUIDField()
    # What was reported: the status that triggered a delivery-status callback, "received" for inbound.
    # Attempts of one (subject, kind, event) are the retries of one callback.
    event = peewee.CharField()
    url = peewee.TextField()
    attempt = peewee.IntegerField()  # 1 for the first try
    status_code = peewee.IntegerField(null=True)  # null when no HTTP answer came
    error = peewee.TextField(null=True)  # connection error or timeout, when no HTTP answer came
    duration_ms = peewee.IntegerField()
    attempted_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "callback_attempt"
        indexes = (
            # The operator's listing (newest first per service and kind) and the 7-day purge.
            (("service", "kind", "attempted_at"), False),
            # Earlier attempts of one callback: its attempt number, and whether it already arrived.
            (("subject_id", "kind", "event"), False),
        )

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
