"""What a recorded case event becomes: read the case (reading.py), choose the scenario and the channels
(pipeline/domain/case_events.py), and send through the API's own send (pipeline/stages/sends/: limits,
trial mode, templates, personalisation, the fallback chain for the channels after the first), as a
live send of the service with the case's identificatie as its reference.

Every outcome is kept on the event (models.case_event). Exactly once: the event is claimed by a
compare-and-set from an open state in the transaction that records the notification, so a message
delivered twice, or an event swept while its message was still on its way, sends once. An API that is
down leaves the event waiting, tried again with back-off (the actor's retry, the sweep's as a
backstop) for GIVE_UP_AFTER_ATTEMPTS tries, about three days.
"""
from __future__ import annotations

import datetime
import logging
import re
from collections.abc import Mapping
from typing import Any

from models.case_event import CaseEvent, CaseEventLink
from models.db import database, utcnow
from models.service import Service
from observability.metrics import case_event_outcomes
from pipeline.domain import case_events as domain
from pipeline.domain.errors import ApiError, RateLimitError, Refusal, kept
from pipeline.infrastructure import zgw
from pipeline.infrastructure.throughput import Enqueue
from pipeline.infrastructure.zgw import OutsideRoots, Refused, Unreachable, ZgwError
from pipeline.stages.case_events import reading
from pipeline.stages.sends.letters import send_letter
from pipeline.stages.sends.sender import Sender
from pipeline.stages.sends.sending import send_notification

log = logging.getLogger(__name__)

FIRST_RETRY_SECONDS = 30.0
LONGEST_RETRY_SECONDS = 3600.0
# About three days of tries at the back-off below (7 to reach an hour, then hourly); Open Notificaties itself
# stops posting again after about a day. Counted in tries, not from the receipt: an event tried again by
# hand has its three days again, and a worker stopped for days loses nothing.
GIVE_UP_AFTER_ATTEMPTS = 80
LIVE = "live"  # a case event is sent as a live key's send: trial mode and the limits apply
_PLACED = re.compile(r"^(fallback\[\d\]) ")  # a refusal of an alternative, in words without a code
# Outcomes an API causes: counted by the API, not by the scenario (often not read yet).
_API_OUTCOMES = frozenset({domain.API_REFUSED, domain.GAVE_UP, domain.WAITING, domain.OUTSIDE_ROOTS})


def _start_watched_series() -> None:
    """The series an alert watches exist from the start, so that increase() sees a process's first refusal."""
    for api in (zgw.ZAKEN, zgw.CATALOGI, zgw.KLANT):
        for outcome in (domain.API_REFUSED, domain.GAVE_UP):
            case_event_outcomes.labels(outcome, "", api)


_start_watched_series()


def _count(outcome: str, scenario: str | None = None, api: str | None = None) -> None:
    case_event_outcomes.labels(outcome, "" if outcome in _API_OUTCOMES else scenario or "", api or "").inc()


def retry_delay(attempts: int) -> float:
    """Seconds before the attempts+1st try: doubling from FIRST_RETRY_SECONDS, at most an hour."""
    return min(FIRST_RETRY_SECONDS * 2 ** max(attempts - 1, 0), LONGEST_RETRY_SECONDS)


def _finish(event: CaseEvent, state: str, detail: Mapping[str, Any] | None = None, **fields: Any) -> bool:
    """Keep a final outcome, unless another run of this event got there first."""
    values = {"state": state, "detail": dict(detail) if detail else None, "next_attempt_at": None,
              "updated_at": utcnow(), **fields}
    kept_now = CaseEvent.update(values).where(
        (CaseEvent.id == event.id) & CaseEvent.state.in_(domain.OPEN)).execute() == 1
    if kept_now:
        _count(state, fields.get("scenario"), (detail or {}).get("api"))
    return kept_now


def _wait(event: CaseEvent, detail: Mapping[str, Any]) -> float | None:
    """An API was down (or the service's rate limit full): wait and try again, or give up past the
    horizon. The seconds to wait, or None when it gave up."""
    now = utcnow()
    if event.attempts + 1 >= GIVE_UP_AFTER_ATTEMPTS:
        _finish(event, domain.GAVE_UP, detail)
        log.warning("case event %s given up: %s", event.id, detail.get("api", "rate limit"))
        return None
    attempts = event.attempts + 1
    delay = retry_delay(attempts)
    if CaseEvent.update(state=domain.WAITING, detail=dict(detail), attempts=attempts, updated_at=now,
                        next_attempt_at=now + datetime.timedelta(seconds=delay)).where(
            (CaseEvent.id == event.id) & CaseEvent.state.in_(domain.OPEN)).execute():
        _count(domain.WAITING, api=detail.get("api"))
    return delay


def _api_detail(error: ZgwError) -> dict[str, Any]:
    return {"api": error.api, "status": error.status, "code": error.code}


def process(event_id: object, enqueue: Mapping[str, Enqueue]) -> float | None:
    """Do what the event asks; enqueue[channel] sends what it records once committed. The seconds after
    which it is to be tried again, or None when it is done (or was done already)."""
    event = CaseEvent.get_or_none(CaseEvent.id == event_id)
    if event is None or event.state not in domain.OPEN:
        return None
    link = CaseEventLink.get_or_none(CaseEventLink.id == event.link_id)
    service = Service.get_or_none(Service.id == event.service_id)
    if link is None or service is None:
        return None  # removed since: the cascade takes the event too
    try:
        _process(event, link, service, enqueue)
    except OutsideRoots as outside:
        log.warning("case event %s refused: its %s is not under the link's roots", event.id, outside.what)
        _finish(event, domain.OUTSIDE_ROOTS, {"what": outside.what})
    except Unreachable as down:
        return _wait(event, _api_detail(down))
    except Refused as refused:
        log.warning("case event %s: the %s API refused with %s", event.id, refused.api, refused.status)
        _finish(event, domain.API_REFUSED, _api_detail(refused))
    except RateLimitError:
        return _wait(event, {"rate_limit": True})
    return None


def _process(event: CaseEvent, link: CaseEventLink, service: Service, enqueue: Mapping[str, Enqueue]) -> None:
    apis = reading.apis_of(link, service.name)
    facts = reading.read_status(apis, event.message)
    status_text = str(facts.statustype.get("omschrijving") or "")[:80]
    known = {"zaak_identificatie": str(facts.zaak.get("identificatie") or "")[:40] or None,
             "status_omschrijving": status_text or None, "scenario": domain.scenario_of(facts.statustype),
             "zaak_uuid": str(facts.zaak.get("uuid") or "")[:36] or None}
    # Kept at once: an API refusing or down from here on still shows on the case's page.
    CaseEvent.update(updated_at=utcnow(), **known).where(
        (CaseEvent.id == event.id) & CaseEvent.state.in_(domain.OPEN)).execute()
    if facts.case_type not in (link.case_types or []):
        _finish(event, domain.NOT_TAKING_PART, {"case_type": facts.case_type}, **known)
        return
    if not domain.informs(facts.statustype):
        _finish(event, domain.NOT_INFORMED, None, **known)
        return
    role = reading.initiator_of(apis, facts.zaak)
    party = reading.party_of(apis, role) if role is not None else None
    if party is None:
        _finish(event, domain.NO_CONTACT_DETAILS, {"reason": "no-initiator" if role is None else "no-party"}, **known)
        return
    identificatie = known["zaak_identificatie"] or ""
    lines = domain.letter_lines(party)
    templates = (link.templates or {}).get(known["scenario"]) or {}
    reached = domain.contact_of(party, identificatie, lines).reached_by
    plan = [(channel, address) for channel, address in reached if templates.get(channel)]
    known["partij_uuid"] = str(party.get("uuid") or "")[:36] or None
    if not plan:
        _finish(event, domain.NO_TEMPLATE if reached else domain.NO_CONTACT_DETAILS,
                {"channels": [channel for channel, _ in reached]} if reached else {"reason": "no-address"}, **known)
        return
    values = domain.personalisation(facts.zaak, status_text, party)
    _send(event, service, plan, templates, values, known, enqueue)


def _body(plan: list[tuple[str, Any]], templates: Mapping[str, str], values: dict[str, str],
          reference: str) -> dict[str, Any]:
    """The v2 API's body of the first channel's send, the others as its fallback."""
    (channel, address), rest = plan[0], plan[1:]
    body: dict[str, Any] = {"template_id": templates[channel], "personalisation": values, "reference": reference}
    if channel == domain.LETTER:
        body["personalisation"] = {**values, **domain.address_values(address)}
    else:
        body["phone_number" if channel == domain.SMS else "email_address"] = address
    alternatives = []
    for other, other_address in rest:
        alternative: dict[str, Any] = {"type": other, "template_id": templates[other]}
        if other == domain.EMAIL:
            alternative["email_address"] = other_address
        else:  # a letter: its address lines, merged over the first message's values
            alternative["personalisation"] = domain.address_values(other_address)
        alternatives.append(alternative)
    if alternatives:
        body["fallback"] = alternatives
    return body


def _place(message: str) -> str | None:
    """Which alternative of the fallback a send's refusal is about ("fallback[0]"), or None for the message's own."""
    if isinstance(message, Refusal):
        return message.values.get("place")
    found = _PLACED.match(message)
    return found.group(1) if found else None


def _left_out(refused: ApiError, alternatives: int) -> int | None:
    """The alternative (its index) every refusal is about, or None when the message itself is refused."""
    places = {_place(message) for message in refused.messages}
    return next((index for index in range(alternatives) if places == {f"fallback[{index}]"}), None)


def _send(event: CaseEvent, service: Service, plan: list[tuple[str, Any]], templates: Mapping[str, str],
          values: dict[str, str], known: dict[str, Any], enqueue: Mapping[str, Enqueue]) -> None:
    """Send the plan's first channel with the others as its fallback. A channel the send rules refuse for
    itself (its daily limit, an address it cannot take) is passed over for the next, and an alternative
    refused (a trial service's letter) is left out of the fallback, each kept on the event, so the citizen
    still hears by the channels that reach them. A refusal no channel escapes (domain.ENDS_EVENT), or of
    the last channel, ends the event as send-refused. Each try shortens the plan, so it ends."""
    if not service.active:
        _finish(event, domain.SEND_REFUSED, {"channel": plan[0][0], "refusals": [kept(domain.SERVICE_SUSPENDED)]},
                **known)
        return
    passed_over: list[dict[str, Any]] = []
    left_out: list[dict[str, Any]] = []
    while True:
        detail = {key: found for key, found in ((domain.PASSED_OVER, passed_over), (domain.FALLBACK_LEFT_OUT, left_out))
                  if found}
        try:
            if _claim_and_send(event, service, plan, templates, values, {**known, "detail": detail or None}, enqueue):
                _count(domain.SENT, known["scenario"])
            return
        except RateLimitError:
            raise
        except ApiError as refused:
            index = _left_out(refused, len(plan) - 1)
            refusals = [kept(message) for message in refused.messages]
            refusal = {"channel": plan[0][0] if index is None else plan[index + 1][0], "refusals": refusals}
            if index is not None:
                left_out.append(refusal)
                plan = plan[:index + 1] + plan[index + 2:]
            elif len(plan) > 1 and not domain.ends_event(refusals):
                passed_over.append(refusal)
                plan = plan[1:]
            else:
                _finish(event, domain.SEND_REFUSED, {**refusal, **({domain.PASSED_OVER: passed_over}
                                                                   if passed_over else {})}, **known)
                return


def _claim_and_send(event: CaseEvent, service: Service, plan: list[tuple[str, Any]], templates: Mapping[str, str],
                    values: dict[str, str], known: dict[str, Any], enqueue: Mapping[str, Enqueue]) -> bool:
    """Claim the event and send, in one transaction: a refused send rolls the claim back with it.
    Whether this run sent it (False: another run had)."""
    channel = plan[0][0]
    body = _body(plan, templates, values, known["zaak_identificatie"] or str(event.id))
    sender = Sender(service, LIVE)
    claimed_state = {"state": domain.SENT, "channel": channel, "next_attempt_at": None,
                     "updated_at": utcnow(), "contact_state": domain.CONTACT_AWAITING, **known}
    with database.atomic():
        claimed = CaseEvent.update(claimed_state).where(
            (CaseEvent.id == event.id) & CaseEvent.state.in_(domain.OPEN)).execute()
        if not claimed:
            return False  # another run of this event sent it
        if channel == domain.LETTER:
            notification = send_letter(sender, body, enqueue[domain.LETTER])
        else:
            notification = send_notification(sender, channel, body, enqueue[channel]).notification
        CaseEvent.update(notification_id=notification.id).where(CaseEvent.id == event.id).execute()
    return True
