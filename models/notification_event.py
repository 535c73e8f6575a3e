"""What happened to a notification after it left us, beyond its status: a recipient's spam complaint,
an unsubscribe request, a returned letter. One row per notification and kind, so a provider that
reports the same thing twice records it once.

Not a foreign key to the notification: the service's reports (unsubscribe requests) outlive the
notification's retention, so the row keeps what the report needs in `detail` (encrypted: it holds
the recipient's address).
"""
from __future__ import annotations

import uuid

import peewee

from models.db import BaseModel, EncryptedJSONField, utcnow, uuid_pk
from models.service import Service

COMPLAINT = "complaint"
UNSUBSCRIBE = "unsubscribe"
RETURNED_LETTER = "returned-letter"
KINDS = (COMPLAINT, UNSUBSCRIBE, RETURNED_LETTER)


class NotificationEvent(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    notification_id = peewee.UUIDField()
    kind = peewee.CharField()  # one of KINDS; also the kind of the service's callback it goes to
    occurred_at = peewee.DateTimeField()  # when it happened, as the provider or recipient reported it
    recorded_at = peewee.DateTimeField(default=utcnow)
    detail = EncryptedJSONField(null=True)

    class Meta:
        table_name = "notification_event"
        indexes = (
            (("notification_id", "kind"), True),
            (("service", "kind", "occurred_at"), False),  # a service's report, by date
        )
