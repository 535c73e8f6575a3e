"""The klantcontact a sent case event leaves in Open Klant, once its message is final: through
`maak-klantcontact` (klantinteracties API), on the citizen's party (betrokkene, role klant, initiator)
and the case (onderwerpobject: the zaak's uuid in Open Zaak), saying by which channel, what was sent
and whether it arrived.

It starts from a status change (`due_after`, which workers/case_events.py's listener calls in the
changing transaction and whose answer it enqueues after the commit); the event row says what is due,
so a lost message is the sweep's. The step is its own function of the event, so the listener can hand
it to a transactional outbox instead of the queue without changing it.
"""
from __future__ import annotations

import datetime
import logging
from typing import Any

from models import cache
from models.case_event import CaseEvent, CaseEventLink
from models.db import utcnow
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.service import Service
from observability.metrics import case_event_klantcontacts
from pipeline.domain import case_events as domain, statuses
from pipeline.domain.formatting import iso
from pipeline.infrastructure import zgw
from pipeline.infrastructure.zgw import Refused, Unreachable
from pipeline.stages.case_events import processing, reading
from pipeline.stages.fallback import FALLS_BACK_ON

log = logging.getLogger(__name__)

CHAIN_STEPS = 3  # a message and at most two alternatives
CHANNEL_NAMES = {"sms": "sms", "email": "e-mail", "letter": "brief"}  # Open Klant's kanaal, in Dutch
ARRIVED = frozenset({statuses.DELIVERED, statuses.SENT})
LANGUAGE = "nld"  # ISO 639-2, as Open Klant's taal (at most 3 characters)
MAX_CONTENT = 1000  # klantcontact.inhoud
MAX_SUBJECT = 200  # klantcontact.onderwerp


def _any_link() -> bool:
    # While no service is linked, a status change costs no query at all.
    return cache.cached(("case-event-links-any",), lambda: CaseEventLink.select().exists())


def _awaiting_event_of(notification_id: object) -> CaseEvent | None:
    """The event awaiting this message's outcome: sent as this message, or as the message it (or the one
    it stood in for) stands in for. One query, by the indexes of both tables."""
    stood_in_for = NotificationFallback.select(NotificationFallback.fallback_for).where(
        NotificationFallback.notification == notification_id)
    first = NotificationFallback.select(NotificationFallback.fallback_for).where(
        NotificationFallback.notification.in_(stood_in_for))
    return CaseEvent.select(CaseEvent.id, CaseEvent.detail).where(
        ((CaseEvent.notification_id == notification_id) | CaseEvent.notification_id.in_(stood_in_for)
         | CaseEvent.notification_id.in_(first)) & (CaseEvent.contact_state == domain.CONTACT_AWAITING)).first()


def _chain_goes_on(notification_id: object, new_status: str) -> bool:
    """A failure with an alternative left: the chain's next step is the message that counts."""
    if new_status not in FALLS_BACK_ON:
        return False
    link = NotificationFallback.get_or_none(NotificationFallback.notification == notification_id)
    return link is not None and bool(link.alternatives) and link.refused is None


def may_be_due(new_status: str) -> bool:
    """Whether a change to new_status may make a klantcontact due (no query while no service is linked)."""
    return new_status in statuses.FINAL and _any_link()


def due_after(notification_id: str, new_status: str) -> str | None:
    """A message's status changed: the id of the case event whose klantcontact is now due, or None.
    Only for final statuses once some service is linked: one query (a second for a failure of a case
    event's message, to see whether its chain goes on)."""
    if not may_be_due(new_status):
        return None
    event = _awaiting_event_of(notification_id)
    if event is None or _chain_goes_on(notification_id, new_status):
        return None
    moved = CaseEvent.update(**_due_now()).where(
        (CaseEvent.id == event.id) & (CaseEvent.contact_state == domain.CONTACT_AWAITING)).execute()
    return str(event.id) if moved else None


def _due_now() -> dict[str, Any]:
    """The klantcontact due now, with its tries counted from here: its horizon is its own, however long
    the event waited for an API before the message went out."""
    return {"contact_state": domain.CONTACT_DUE, "next_attempt_at": utcnow(), "updated_at": utcnow(), "attempts": 0}


def due_after_refusal(notification_id: str, channel: str, refusals: list[dict[str, Any]]) -> str | None:
    """The fallback step after a case event's failed message was refused (trial mode, an address the
    letter rules refuse): the id of the event, which now keeps the refusal beside its outcome and whose
    klantcontact is due (the failed message's, not arrived, as the OMC records a failed message), or None."""
    if not _any_link():
        return None
    event = _awaiting_event_of(notification_id)
    if event is None:
        return None
    detail = {**(event.detail or {}), domain.FALLBACK_REFUSED: {"channel": channel, "refusals": refusals}}
    moved = CaseEvent.update(detail=detail, **_due_now()).where(
        (CaseEvent.id == event.id) & (CaseEvent.contact_state == domain.CONTACT_AWAITING)).execute()
    return str(event.id) if moved else None


def _last_of_chain(first_id: object) -> Notification | None:
    current, found = first_id, None
    for _ in range(CHAIN_STEPS):
        row = Notification.get_or_none(Notification.id == current)
        if row is None:
            return found
        found = row
        link = NotificationFallback.get_or_none(NotificationFallback.notification == current)
        if link is None or link.sent_as is None:
            break
        current = link.sent_as
    return found


def _klantcontact(event: CaseEvent, message: Notification | None) -> dict[str, Any]:
    channel = message.notification_type if message is not None else event.channel
    subject = f"Zaak {event.zaak_identificatie or ''}: {event.status_omschrijving or ''}".strip()
    when = (message.sent_at or message.updated_at or message.created_at) if message is not None else event.updated_at
    return {
        "klantcontact": {
            "kanaal": CHANNEL_NAMES.get(str(channel), str(channel)),
            "onderwerp": subject[:MAX_SUBJECT],
            "inhoud": ((message.body if message is not None else None) or "")[:MAX_CONTENT],
            "indicatieContactGelukt": message is not None and message.status in ARRIVED,
            "taal": LANGUAGE,
            "vertrouwelijk": True,
            "plaatsgevondenOp": iso(when),
        },
        "betrokkene": {"wasPartij": {"uuid": event.partij_uuid}, "rol": "klant", "initiator": True},
        "onderwerpobject": {"onderwerpobjectidentificator": {
            "codeObjecttype": "zaak", "codeRegister": "openzaak", "codeSoortObjectId": "uuid",
            "objectId": event.zaak_uuid}},
    }


# Counted from the start, so that increase() sees a process's first refusal (an alert watches them).
case_event_klantcontacts.labels(domain.CONTACT_REFUSED)
case_event_klantcontacts.labels(domain.CONTACT_GAVE_UP)
WAITING = "waiting"  # Open Klant down: the klantcontact is tried again (counted at each try)


def _set(event: CaseEvent, contact_state: str, **fields: Any) -> None:
    if CaseEvent.update(contact_state=contact_state, updated_at=utcnow(), **fields).where(
            (CaseEvent.id == event.id) & (CaseEvent.contact_state == domain.CONTACT_DUE)).execute():
        case_event_klantcontacts.labels(contact_state).inc()


def _with_answer(event: CaseEvent, error: zgw.ZgwError) -> dict[str, Any]:
    """The event's detail with what Open Klant answered (never a URL: the party's is not shown)."""
    return {**(event.detail or {}), domain.CONTACT_DETAIL: {"api": error.api, "status": error.status,
                                                            "code": error.code}}


def _wait(event: CaseEvent, down: Unreachable) -> float | None:
    """Open Klant down: try again with the events' back-off, or give up past their horizon. The seconds
    to wait, or None when it gave up (kept, so the purge takes the event after its days)."""
    if event.attempts + 1 >= processing.GIVE_UP_AFTER_ATTEMPTS:
        log.warning("case event %s: klantcontact given up, the %s API answered %s", event.id, down.api, down.status)
        _set(event, domain.CONTACT_GAVE_UP, next_attempt_at=None, detail=_with_answer(event, down))
        return None
    delay = processing.retry_delay(event.attempts + 1)
    CaseEvent.update(attempts=event.attempts + 1, next_attempt_at=utcnow() + datetime.timedelta(seconds=delay),
                     detail=_with_answer(event, down), updated_at=utcnow()).where(
        (CaseEvent.id == event.id) & (CaseEvent.contact_state == domain.CONTACT_DUE)).execute()
    log.info("case event %s: klantcontact waits, the %s API answered %s", event.id, down.api, down.status)
    case_event_klantcontacts.labels(WAITING).inc()
    return delay


def record(event_id: object) -> float | None:
    """Record the event's klantcontact when it is due: None when done (or not due), else the seconds
    after which to try again (Open Klant down)."""
    event = CaseEvent.get_or_none(CaseEvent.id == event_id)
    if event is None or event.contact_state != domain.CONTACT_DUE:
        return None
    link = CaseEventLink.get_or_none(CaseEventLink.id == event.link_id)
    service = Service.get_or_none(Service.id == event.service_id)
    if link is None or service is None:
        return None
    if not event.partij_uuid or not event.zaak_uuid:
        _set(event, domain.CONTACT_NO_PARTY, next_attempt_at=None)
        return None
    klant = reading.apis_of(link, service.name).klant
    try:
        made = zgw.request(klant, "POST", klant.url("maak-klantcontact"), what="maak-klantcontact",
                           json_body=_klantcontact(event, _last_of_chain(event.notification_id)), expect=(201,))
    except Unreachable as down:
        return _wait(event, down)
    except Refused as refused:
        log.warning("case event %s: klantcontact refused by the %s API with %s", event.id, refused.api,
                    refused.code if refused.code == domain.ADDRESS_REFUSED else refused.status)
        _set(event, domain.CONTACT_REFUSED, next_attempt_at=None, detail=_with_answer(event, refused))
        return None
    contact = made.get("klantcontact") if isinstance(made, dict) else None
    url = contact.get("url") if isinstance(contact, dict) else None
    _set(event, domain.CONTACT_RECORDED, next_attempt_at=None, contact_url=str(url)[:1000] if url else None)
    return None
