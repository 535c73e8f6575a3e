"""A notification's place in a fallback chain (issue 44), kept in a table beside `notification`.

Beside it, not in it: the previous release's workers read `notification` rows whole (`SELECT *`)
and make them models by their column names, so a column added to `notification` would stop them
while a rolling upgrade has both releases running
(docs/architecture.md#migrations-are-frozen-expand-then-contract). A row exists only for a
message sent with alternatives, or sent as one.
"""
from __future__ import annotations

import uuid

import peewee

from models.db import BaseModel, EncryptedJSONField
from models.notification import Notification


class NotificationFallback(BaseModel):
    notification_id: uuid.UUID  # the foreign key's value, without reading the notification (peewee's accessor)
    notification = peewee.ForeignKeyField(Notification, primary_key=True, on_delete="CASCADE",
                                          column_name="notification_id")
    fallback_for = peewee.UUIDField(null=True)  # the failed message this one stands in for
    sent_as = peewee.UUIDField(null=True)  # the message sent instead of this one
    # The alternatives still to try if this message fails (personal data, so sealed as personalisation is).
    alternatives = EncryptedJSONField(null=True)
    failed_at = peewee.DateTimeField(null=True)  # when this message failed with an alternative left
    refused = EncryptedJSONField(null=True)  # pipeline.domain.errors.kept() of each refusal that ended the chain

    class Meta:
        table_name = "notification_fallback"


# Messages that failed with their next step neither taken nor refused: what the sweep reads to start
# a step whose message was lost. Few at any time: a row leaves once its step is taken or refused.
STEP_DUE_INDEX = "notification_fallback_step_due"
NotificationFallback.add_index(NotificationFallback.index(
    NotificationFallback.failed_at, name=STEP_DUE_INDEX,
    where=NotificationFallback.failed_at.is_null(False) & NotificationFallback.sent_as.is_null()
    & NotificationFallback.refused.is_null()))
