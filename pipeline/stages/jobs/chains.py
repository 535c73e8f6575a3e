"""The fallback chains of a job's rows (issue 44): a row's notification, and the messages sent in turn
instead of it when it failed (fallback_sent_as, at most two steps). The chain's messages are not the
job's (they have no row); they are found from the row's, a step at a time for a whole chunk of rows."""
from __future__ import annotations

import uuid
from collections.abc import Iterable

from models.notification import Notification

MAX_STEPS = 2  # core/fallback.py's MAX_ALTERNATIVES
STEP_COLUMNS = (Notification.id, Notification.notification_type, Notification.status, Notification.to,
                Notification.fallback_sent_as, Notification.fallback_refused)


def chains(service_id: object, firsts: Iterable[Notification]) -> dict[uuid.UUID, list[Notification]]:
    """For each first message (which must carry fallback_sent_as), the messages sent instead of it,
    in order; a message without any is left out."""
    found: dict[uuid.UUID, list[Notification]] = {}
    waiting = {first.fallback_sent_as: first.id for first in firsts if first.fallback_sent_as is not None}
    for _ in range(MAX_STEPS):
        if not waiting:
            break
        steps = Notification.select(*STEP_COLUMNS).where(
            (Notification.service == service_id) & Notification.id.in_(list(waiting)))
        following = {}
        for step in steps:
            first_id = waiting[step.id]
            found.setdefault(first_id, []).append(step)
            if step.fallback_sent_as is not None:
                following[step.fallback_sent_as] = first_id
        waiting = following
    return found


def refusal(first: Notification, chain: list[Notification]) -> str | None:
    """The refusal that ended the chain (kept on the message whose next step it refused) in the API's
    words, if any."""
    stored = next((m.fallback_refused for m in [first, *chain] if m.fallback_refused), None)
    return None if stored is None else "; ".join(record["text"] for record in stored)
