"""The case-events queue (issue 52): a recorded Open Notificaties message becomes a sent message
(pipeline/stages/case_events/processing.py), and a final message a klantcontact in Open Klant
(contact.py), started by the status-change listener below (workers.wire registers it); and hourly, on the
periodic queue, whether each service's subscription at Open Notificaties still holds (watch.py). A queue of its
own: reading the ZGW APIs waits on them, and must never hold up the sends. A ZGW API that is down
makes the stage ask for a retry with back-off; the event row keeps what is due, and the sweep sends
again what lost its message."""
from __future__ import annotations

import logging
import time
from typing import Any

import dramatiq
import peewee

from models.db import utcnow
from pipeline.domain import case_events as domain
from pipeline.stages.case_events import contact, processing, sweep, watch
from workers.actors import actor
from workers.enqueue import enqueue_after_commit
from workers.letters import enqueue_letter_pdf
from workers.sending import enqueue_deliveries

log = logging.getLogger(__name__)

QUEUE = "case-events"
# A run of the subscriptions' check starts no check past watch.BUDGET_SECONDS; this stops one that hangs.
CHECK_TIME_LIMIT_MS = int((watch.BUDGET_SECONDS + 300) * 1000)
# The stage stops retrying at its horizon (processing.GIVE_UP_AFTER_ATTEMPTS); this only bounds a stage
# that failed to say so.
MAX_RETRIES = 200


def _retry_when(retries: int, exc: BaseException) -> bool:
    # Retry is the stage's own "an API is down"; a database briefly away is worth waiting for too.
    # Anything else is a bug: reported once, and the sweep tries the event again later.
    return isinstance(exc, (dramatiq.Retry, peewee.OperationalError, peewee.InterfaceError)) \
        and retries < MAX_RETRIES


RETRIES: dict[str, Any] = {"max_retries": MAX_RETRIES, "retry_when": _retry_when}


def _retry(delay_seconds: float | None) -> None:
    if delay_seconds is not None:
        raise dramatiq.Retry("a ZGW API is down", delay=int(delay_seconds * 1000))


@actor(queue_name=QUEUE, **RETRIES)
def process_case_event(event_id: str) -> None:
    _retry(processing.process(event_id, {"sms": enqueue_deliveries, "email": enqueue_deliveries,
                                         "letter": enqueue_letter_pdf}))


@actor(queue_name=QUEUE, **RETRIES)
def record_klantcontact(event_id: str) -> None:
    _retry(contact.record(event_id))


def may_record_contact(new_status: str) -> bool:
    """Whether a change to new_status may make a klantcontact due: such a change is made in a transaction
    with the event's mark (status_changes.on_change); costs nothing while no service is linked."""
    return contact.may_be_due(new_status)


def status_changed(notification_id: str, new_status: str) -> None:
    """The status-change listener: a case event's message final, its klantcontact is due. The event is
    marked due in the change's transaction, so the mark is the message's outbox (as a fallback step's
    is): a message lost after the commit is sent again by sweep_case_events."""
    event_id = contact.due_after(notification_id, new_status)
    if event_id is not None:
        enqueue_after_commit(record_klantcontact, event_id)


def fallback_refused(notification_id: str, channel: str, refusals: list[dict[str, Any]]) -> None:
    """The fallback step of a case event's message was refused: the chain ended at the failed message,
    which the event now says, and its klantcontact is due."""
    event_id = contact.due_after_refusal(notification_id, channel, refusals)
    if event_id is not None:
        enqueue_after_commit(record_klantcontact, event_id)


def enqueue_event(event_id: str) -> None:
    """Call inside the transaction that recorded the event: it is processed after the commit."""
    enqueue_after_commit(process_case_event, event_id)


@actor(queue_name="periodic", max_retries=0)
def sweep_case_events() -> None:
    """Events and klantcontacten whose message was lost, sent again; events past keeping, deleted."""
    to_process, to_record = sweep.overdue(utcnow())
    for event_id in to_process:
        enqueue_after_commit(process_case_event, event_id)
    for event_id in to_record:
        enqueue_after_commit(record_klantcontact, event_id)
    purged = sweep.purge()
    if to_process or to_record or purged:
        log.info("case events swept: %d to process, %d klantcontacten, %d deleted", len(to_process),
                 len(to_record), purged)


@actor(queue_name="periodic", max_retries=0, time_limit=CHECK_TIME_LIMIT_MS)
def check_case_event_subscriptions() -> None:
    """Read back each service's subscription at Open Notificaties, and keep whether it still holds."""
    found = watch.check_due(utcnow(), until=time.monotonic() + watch.BUDGET_SECONDS)
    lost = {state: count for state, count in found.items() if state != domain.SUBSCRIPTION_HOLDS}
    if lost:
        log.warning("case-event subscriptions checked: %d hold, not holding: %s",
                    found[domain.SUBSCRIPTION_HOLDS], ", ".join(f"{state} {count}" for state, count in lost.items()))
    elif found:
        log.info("case-event subscriptions checked: %d hold", found[domain.SUBSCRIPTION_HOLDS])
