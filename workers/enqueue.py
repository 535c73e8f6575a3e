"""The only way to enqueue: after the database commit, so no message announces a rolled-back row."""
from __future__ import annotations

import dramatiq

from models.db import database


def enqueue_after_commit(actor: dramatiq.Actor, *args: object, delay_ms: int | None = None) -> None:
    """Send actor(*args) once the current transaction commits (at once outside a transaction)."""
    database.after_commit(lambda: actor.send_with_options(args=args, delay=delay_ms))
