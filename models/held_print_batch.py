"""Letter batches the print provider must not be sent until an operator acts."""
from __future__ import annotations

import peewee

from models.db import BaseModel, utcnow


class HeldPrintBatch(BaseModel):
    """A claimed batch whose hand-over was refused before anything was sent (the SFTP server offered a
    host key other than the one pinned, or refused our key). Its letters stay claimed and `created`;
    each print run tries it again, and the worker dashboard lists it (pipeline/stages/letters/held.py)."""

    batch_id = peewee.CharField(primary_key=True)  # the letters' provider_reference
    reason = peewee.TextField()  # the last refusal, as the provider worded it
    held_since = peewee.DateTimeField(default=utcnow)
    tried_at = peewee.DateTimeField(default=utcnow)  # when it was last refused
    trying_since = peewee.DateTimeField(null=True)  # a print run sent it to be tried again; None: waiting

    class Meta:
        table_name = "held_print_batch"
