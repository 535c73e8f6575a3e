"""Notifications: the source of truth for every message and its status."""
from __future__ import annotations

import uuid

import peewee
from peewee import fn

from models.db import BaseModel, EncryptedJSONField, EncryptedTextField, JSONField, utcnow, uuid_pk
from models.service import Service


class Notification(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="notifications", on_delete="CASCADE", index=False)
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    api_key_id = peewee.UUIDField(null=True)
    key_type = peewee.CharField()
    notification_type = peewee.CharField()
    template_id = peewee.UUIDField(null=True)  # null for precompiled letters
    template_version = peewee.IntegerField(null=True)
    to = peewee.TextField()  # as supplied by the caller (letters: the address lines joined)
    normalised_to = peewee.TextField(null=True)
    reference = peewee.CharField(max_length=1000, null=True)
    status = peewee.CharField()
    body = EncryptedTextField(null=True)
    subject = peewee.TextField(null=True)
    reply_to_text = peewee.TextField(null=True)  # from_number / reply-to address / contact block
    created_at = peewee.DateTimeField(default=utcnow)
    sent_at = peewee.DateTimeField(null=True)
    completed_at = peewee.DateTimeField(null=True)
    updated_at = peewee.DateTimeField(null=True)
    scheduled_for = peewee.DateTimeField(null=True)
    sent_by = peewee.CharField(null=True)  # provider name
    provider_reference = peewee.CharField(null=True)  # indexed where set (below)
    international = peewee.BooleanField(default=False)
    phone_prefix = peewee.CharField(null=True)
    rate_multiplier = peewee.IntegerField(null=True)
    billable_units = peewee.IntegerField(null=True)  # sms fragments or letter sheets, set once sent
    # What the rendered content will cost once sent (sms fragments, 0 for email), known at accept: a
    # simulated send then records its cost in the same statement that moves it on.
    fragment_count = peewee.IntegerField(null=True)
    postage = peewee.CharField(null=True)
    address = JSONField(null=True)  # letters: {"lines": [...], "postcode": ...}
    one_click_unsubscribe_url = peewee.TextField(null=True)
    created_by_name = peewee.CharField(null=True)
    precompiled = peewee.BooleanField(default=False)
    personalisation = EncryptedJSONField(null=True)  # for rendering the HTML email at dispatch; purged with the row
    # Set when a worker starts the provider call: a redelivered message that finds it set never calls
    # the provider again (at most one provider call per notification).
    dispatch_started_at = peewee.DateTimeField(null=True)
    # When a send that waits out a provider outage is tried again (its delayed message is due).
    retry_at = peewee.DateTimeField(null=True)
    # Who sent it, when not an API key: a bulk job's row, or a console user's one-off send.
    job_id = peewee.UUIDField(null=True)
    job_row_number = peewee.IntegerField(null=True)  # 0-based row of the job's file
    created_by_user_id = peewee.UUIDField(null=True)
    # Why a letter is validation-failed (e.g. "content outside the printable area on page 2"), as the
    # letter stage found it: set in the same UPDATE that moves it there, so it costs no write of its own.
    validation_failure = peewee.TextField(null=True)
    class Meta:
        indexes = (
            # Paging a service's notifications newest first, per key type: the list query's index.
            (("service", "key_type", "created_at", "id"), False),
            (("status", "created_at"), False),
        )


# A status condition on rows found by id or provider reference (a worker's reads and moves) is made on
# this expression, which no index covers, so the key alone finds the rows. The (status, created_at)
# index keeps an entry for every row that passed through a status until VACUUM clears it, and a
# bitmap scan never marks one dead: a plan that ANDs that index with the key's reads every row moved
# through the status lately, to narrow down a few rows the key had found already.
UNINDEXED_STATUS_SQL = f"(\"{Notification.status.column_name}\" || '')"


def unindexed_status() -> peewee.Expression:
    """UNINDEXED_STATUS_SQL for a peewee query."""
    return Notification.status.concat("")


# The lists filtered by status or channel (issue 45): one range per (channel, status), newest first, merged
# (models/queries.py), so a rare status costs what a common one does. Made by step 185, concurrently.
KIND_INDEX = "notification_service_id_key_type_kind_created_at_id"
Notification.add_index(Notification.index(Notification.service, Notification.key_type, Notification.notification_type,
                                          Notification.status, Notification.created_at, Notification.id,
                                          name=KIND_INDEX))
# A channel filter without a status, and the "failed" filter: one range per channel newest first (step
# 200), rather than a range per status of it. PostgreSQL's planning of a merge of ranges grows faster than
# their count (26 ranges took longer to plan than to read); the failures' index holds failed rows only.
CHANNEL_INDEX = "notification_service_id_key_type_channel_created_at_id"
Notification.add_index(Notification.index(Notification.service, Notification.key_type, Notification.notification_type,
                                          Notification.created_at, Notification.id, name=CHANNEL_INDEX))
FAILED_STATUSES = ("permanent-failure", "temporary-failure", "technical-failure", "virus-scan-failed",
                   "validation-failed")  # the public filter "failed" (pipeline.domain.statuses.FAILURES)
FAILED_INDEX = "notification_service_id_key_type_channel_failed_created_at_id"
Notification.add_index(Notification.index(Notification.service, Notification.key_type, Notification.notification_type,
                                          Notification.created_at, Notification.id, name=FAILED_INDEX,
                                          where=Notification.status.in_(FAILED_STATUSES)))
# The dashboard's scheduled sends: only those not yet handed on, few whatever the table's size.
SCHEDULED_INDEX = "notification_service_id_scheduled_for"
Notification.add_index(Notification.index(Notification.service, Notification.scheduled_for, name=SCHEDULED_INDEX,
                                          where=(Notification.status == "created")
                                          & Notification.scheduled_for.is_null(False)))
# Receipts find their notification by the provider's reference, which is set only once it is sent:
# indexing the rows that have one spares every accepted send an index entry.
Notification.add_index(Notification.index(Notification.provider_reference,
                                          where=Notification.provider_reference.is_null(False)))
# The list's reference filter: equality on service, key type and reference, then the list's order, so a
# page is an index range read backwards however many rows the service has. Only rows with a reference.
Notification.add_index(Notification.index(Notification.service, Notification.key_type, Notification.reference,
                                          Notification.created_at, Notification.id,
                                          where=Notification.reference.is_null(False)))
# The console's search by recipient: a recipient's messages newest first, however many the service has.
# Lower-cased, as the search compares (the API keeps an email address as it was given).
RECIPIENT_INDEX = "notification_service_id_lower_normalised_to_created_at"
Notification.add_index(Notification.index(Notification.service, fn.LOWER(Notification.normalised_to),
                                          Notification.created_at, name=RECIPIENT_INDEX))
# A job's notifications: its progress counts, and the list leaves them out unless include_jobs is given.
# A row of a job is one notification exactly: a retried stage finds the row's notification already there.
Notification.add_index(Notification.index(Notification.job_id, Notification.job_row_number, unique=True,
                                          where=Notification.job_id.is_null(False)))


class ReceivedText(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="received_texts", on_delete="CASCADE", index=False)
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    notify_number = peewee.CharField()
    user_number = peewee.CharField()
    content = EncryptedTextField()  # as a sent message's body: what a person wrote is not in a dump
    provider_reference = peewee.CharField(null=True)
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("service", "created_at", "id"), False),)
