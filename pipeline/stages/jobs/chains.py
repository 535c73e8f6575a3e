"""The fallback chains of a job's rows (issue 44): a row's notification, and the messages sent in turn
instead of it when it failed (at most two steps). The chain's messages are not the job's (they have
no row); they are found from the row's links (models.notification_fallback), a step at a time for a
whole chunk of rows."""
from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from models.notification import Notification
from models.notification_fallback import NotificationFallback
from pipeline.stages.fallback import links

MAX_STEPS = 2  # pipeline/stages/sends/alternatives.py's MAX_ALTERNATIVES
STEP_COLUMNS = (Notification.id, Notification.notification_type, Notification.status, Notification.to)


@dataclass(frozen=True)
class Chains:
    steps: dict[uuid.UUID, list[Notification]]  # each first message's: the messages sent instead, in order
    links: dict[uuid.UUID, NotificationFallback]  # the links read, the first messages' and their steps'

    def of(self, first_id: uuid.UUID) -> list[Notification]:
        return self.steps.get(first_id, [])

    def refused(self, first_id: uuid.UUID) -> list[dict] | None:
        """The refusal that ended the chain (kept beside the message whose next step it refused), as
        stored (pipeline.domain.errors.kept), if any."""
        for message_id in (first_id, *(step.id for step in self.of(first_id))):
            link = self.links.get(message_id)
            if link is not None and link.refused:
                return list(link.refused)
        return None

    def refusal(self, first_id: uuid.UUID) -> str | None:
        """refused() in the API's words."""
        stored = self.refused(first_id)
        return None if stored is None else "; ".join(record["text"] for record in stored)


def chains(service_id: object, first_ids: Iterable[uuid.UUID]) -> Chains:
    """The chains of these first messages; a message without one has no steps and no refusal."""
    read = links(first_ids)
    steps: dict[uuid.UUID, list[Notification]] = {}
    waiting = {link.sent_as: first_id for first_id, link in read.items() if link.sent_as is not None}
    for _ in range(MAX_STEPS):
        if not waiting:
            break
        found = Notification.select(*STEP_COLUMNS).where(
            (Notification.service == service_id) & Notification.id.in_(list(waiting)))
        step_links = links(waiting)
        read.update(step_links)
        following = {}
        for step in found:
            first_id = waiting[step.id]
            steps.setdefault(first_id, []).append(step)
            link = step_links.get(step.id)
            if link is not None and link.sent_as is not None:
                following[link.sent_as] = first_id
        waiting = following
    return Chains(steps, read)
