"""Bulk sends from a spreadsheet (Notify's "jobs"): one row per uploaded file, its rows become notifications.

The uploaded rows themselves are kept (encrypted, a part at a time: JobRows) until they are notifications,
so the stages that turn rows into notifications can be retried without the upload, and each reads only
the part it makes.
"""
from __future__ import annotations

import uuid

import peewee

from models.db import BaseModel, EncryptedJSONField, utcnow, uuid_pk
from models.service import Service

# A job's life: checked and waiting to start (pending, or scheduled for later), being turned into
# notifications (in progress), every row a notification (finished), or stopped before it started.
PENDING = "pending"
SCHEDULED = "scheduled"
IN_PROGRESS = "in progress"
FINISHED = "finished"
CANCELLED = "cancelled"
# Today's limits had no room for every row when it was due to start: nothing of it was sent (Notify's name).
LIMITS_EXCEEDED = "sending limits exceeded"
JOB_STATUSES = (PENDING, SCHEDULED, IN_PROGRESS, FINISHED, CANCELLED, LIMITS_EXCEEDED)
WAITING = (PENDING, SCHEDULED)  # not started: may still be cancelled


class Job(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="jobs", on_delete="CASCADE", index=False)
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    template_id = peewee.UUIDField()
    template_version = peewee.IntegerField()
    original_file_name = peewee.CharField()
    notification_count = peewee.IntegerField()  # rows in the file
    status = peewee.CharField(default=PENDING)
    scheduled_for = peewee.DateTimeField(null=True)
    created_by_user_id = peewee.UUIDField(null=True)  # the console user who uploaded it
    created_at = peewee.DateTimeField(default=utcnow)
    processing_started = peewee.DateTimeField(null=True)
    processing_finished = peewee.DateTimeField(null=True)
    rows_processed = peewee.IntegerField(default=0)  # rows turned into notifications so far
    # When a stage last turned rows into notifications: a job in progress without progress for a while
    # lost its stage's message, and the sweep sends it again.
    progressed_at = peewee.DateTimeField(null=True)
    international_rows = peewee.IntegerField(default=0)  # counted against the international_sms limit too
    # The checked rows of a job uploaded before they were kept in parts (JobRows, migration step 195): the
    # first stage that reads them splits them into parts.
    rows = EncryptedJSONField(null=True)

    class Meta:
        table_name = "job"
        indexes = ((("service", "created_at"), False),)


class JobRows(BaseModel):
    """A part of a job's checked rows (recipient and placeholders, encrypted on their own), kept from
    the upload until the stage that makes its notifications takes it (pipeline/stages/jobs/rows.py): that
    stage decrypts one part, never the whole file, whatever the job's size."""

    job = peewee.ForeignKeyField(Job, on_delete="CASCADE", index=False)
    part = peewee.IntegerField()  # the number of the stage's message that makes it (create_job_rows' chunk)
    first_row = peewee.IntegerField()  # the row number of rows[0]
    rows = EncryptedJSONField()

    class Meta:
        table_name = "job_rows"
        primary_key = peewee.CompositeKey("job", "part")
