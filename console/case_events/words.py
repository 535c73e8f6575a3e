"""What the case-events pages say of stored values, in the page's language: scenarios, the APIs, each
outcome as a sentence with what it names, the klantcontact's and the subscription's states, and the
refusals of core/case_events.py. Never a stored code, never a URL of the message (a party query names a
BSN; none is ever kept, and none is shown)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _, lazy_gettext as _l
from markupsafe import Markup

from console.services.refusals import Words, fixed, in_words, translated
from console.value_names import CHANNELS
from models.case_event import CaseEvent, CaseEventLink
from pipeline.domain import case_events as domain
from pipeline.domain.errors import Refusal, restored

SCENARIOS = {domain.RECEIVED: _l("Case received"), domain.UPDATED: _l("Status changed"),
             domain.CLOSED: _l("Case closed")}
APIS = {"zaken": _l("the Zaken API (Open Zaak)"), "catalogi": _l("the Catalogi API (Open Zaak)"),
        "klant": "Open Klant", "nrc": "Open Notificaties"}  # names, the same in every language
REASONS = {"no-initiator": _l("Not sent: the case has no initiator"),
           "no-party": _l("Not sent: the initiator is not known in Open Klant"),
           "no-address": _l("Not sent: no email address, phone number or postal address is known")}
CONTACT_STATES = {domain.CONTACT_AWAITING: _l("Waiting for the message's outcome"),
                  domain.CONTACT_DUE: _l("Being recorded"),
                  domain.CONTACT_RECORDED: _l("Recorded in Open Klant"),
                  domain.CONTACT_REFUSED: _l("Open Klant refused it"),
                  domain.CONTACT_NO_PARTY: _l("No party in Open Klant to record it on"),
                  domain.CONTACT_GAVE_UP: _l("Not recorded: Open Klant stayed unreachable for three days")}
SUBSCRIPTION_STATES = {domain.SUBSCRIPTION_HOLDS: _l("Holds"),
                       domain.SUBSCRIPTION_MISSING: _l("Missing: Open Notificaties does not know it"),
                       domain.SUBSCRIPTION_DIFFERENT: _l("Changed: it no longer posts case messages to this service"),
                       domain.SUBSCRIPTION_REFUSED: _l("Refused by Open Notificaties"),
                       domain.SUBSCRIPTION_UNREACHABLE: _l("Open Notificaties could not be reached")}
FIELDS = {"zaken_root": "Zaken API", "catalogi_root": "Catalogi API", "klant_root": "Open Klant API",
          "nrc_root": "Open Notificaties API", "client_id": _l("Client ID"),
          "client_secret": _l("Secret"), "klant_token": _l("Open Klant token"),
          "nrc_client_id": _l("Client ID at Open Notificaties"), "nrc_secret": _l("Secret at Open Notificaties")}


def _field(values: Mapping[str, Any]) -> str:
    return str(FIELDS.get(str(values.get("field")), values.get("field")))


def _channel(values: Mapping[str, Any]) -> str:
    return str(CHANNELS.get(str(values.get("channel")), values.get("channel"))).lower()


# The refusals of core/case_events.py by their codes (the URL checks are the shared ones').
REFUSALS: dict[str, Words] = {
    "case_events_root_query": lambda v: _("%(field)s: enter the API's root without a query or fragment",
                                          field=_field(v)),
    "case_events_root_not_listed": lambda v: _(
        "%(field)s: enter a URL of a server on the public internet or in an internal network the operator "
        "allowed", field=_field(v)),
    "case_events_required": lambda v: _("Enter the %(field)s", field=_field(v).lower()),
    "case_events_bad_text": lambda v: _("%(field)s: use 1 to %(limit)s characters", field=_field(v),
                                        limit=v.get("limit")),
    "case_events_template_not_found": fixed(_l("That template does not exist (any more)")),
    "case_events_template_channel": lambda v: _("Choose a template of the channel %(channel)s", channel=_channel(v)),
    "case_events_no_nrc": fixed(_l("Enter the Open Notificaties API first")),
    "case_events_callback_too_long": lambda v: _(
        "The address Open Notificaties would post to is %(length)s characters long; Open Notificaties takes at "
        "most %(limit)s. Ask the operator to shorten BASE_URL", length=v.get("length"), limit=v.get("limit")),
    "case_events_not_retryable": fixed(_l("Only an event that ended without a message can be tried again")),
    "case_events_service_suspended": fixed(_l("The service is suspended (not active) and sends nothing")),
}


def refusal(message: str) -> str:
    """A refusal of the link's rules in the page's language; one of the shared address checks names
    the field it is about (a form of several addresses)."""
    own = in_words(message, REFUSALS)
    if own is not None:
        return own
    worded = translated(message)
    field = message.values.get("field") if isinstance(message, Refusal) else None
    return _("%(field)s: %(problem)s", field=FIELDS[field], problem=worded) if field in FIELDS else worded


def _api(detail: Mapping[str, Any]) -> str:
    return str(APIS.get(str(detail.get("api")), detail.get("api")))


def _waiting(detail: Mapping[str, Any], attempts: int) -> str:
    if detail.get("rate_limit"):
        return _("Waiting: the service's rate limit is full (tried %(attempts)s times)", attempts=attempts)
    if detail.get("code") == domain.CERTIFICATE:
        return _("Waiting: the certificate of %(api)s is not trusted (tried %(attempts)s times)", api=_api(detail),
                 attempts=attempts)
    if detail.get("status"):
        return _("Waiting: %(api)s answered HTTP %(status)s (tried %(attempts)s times)", api=_api(detail),
                 status=detail["status"], attempts=attempts)
    return _("Waiting: %(api)s could not be reached (tried %(attempts)s times)", api=_api(detail), attempts=attempts)


def _reasons(detail: Mapping[str, Any]) -> Markup:
    """The refusals kept, in words; a link in them (trial mode's page) stays a link."""
    return Markup("; ").join(refusal(restored(kept)) for kept in detail.get("refusals") or [])


def _filled(sentence: str, **values: object) -> Markup:
    """One of our sentences (its translation, unfilled) with the values put in, escaped but for Markup."""
    return Markup(sentence) % values


def _sent(event: CaseEvent, detail: Mapping[str, Any]) -> str:
    refused = detail.get(domain.FALLBACK_REFUSED)
    if refused:
        return _filled(_("Not delivered: the message failed and the fallback by %(channel)s was refused: "
                         "%(reasons)s"), channel=_channel(refused), reasons=_reasons(refused))
    said = _filled(_("Message sent by %(channel)s"), channel=_channel({"channel": event.channel}))
    for passed in detail.get(domain.PASSED_OVER) or []:
        said += Markup(". ") + _filled(_("Not by %(channel)s: %(reasons)s"), channel=_channel(passed),
                                       reasons=_reasons(passed))
    for left_out in detail.get(domain.FALLBACK_LEFT_OUT) or []:
        said += Markup(". ") + _filled(_("No fallback by %(channel)s: %(reasons)s"), channel=_channel(left_out),
                                       reasons=_reasons(left_out))
    return said


def _refused_send(detail: Mapping[str, Any]) -> str:
    passed_over = detail.get(domain.PASSED_OVER) or []
    if not passed_over:
        return _filled(_("Not sent: %(reasons)s"), reasons=_reasons(detail))
    return Markup(". ").join(_filled(_("Not sent by %(channel)s: %(reasons)s"), channel=_channel(refused),
                                     reasons=_reasons(refused)) for refused in [*passed_over, detail])


def contact(event: CaseEvent) -> str:
    """What became of the event's klantcontact, as a sentence ("" when none is due)."""
    state = event.contact_state or ""
    answer: Mapping[str, Any] = (event.detail or {}).get(domain.CONTACT_DETAIL) or {}
    if state == domain.CONTACT_DUE and answer:
        return _waiting(answer, event.attempts)
    if state == domain.CONTACT_REFUSED and answer.get("code") == domain.ADDRESS_REFUSED:
        return _("Not recorded: Open Klant is at an address this service may not reach")
    if state == domain.CONTACT_REFUSED and answer.get("status"):
        return _("Open Klant refused it (HTTP %(status)s)", status=answer["status"])
    return str(CONTACT_STATES.get(state, ""))


def outcome(event: CaseEvent) -> str:
    """What became of the event, as a sentence."""
    detail: Mapping[str, Any] = event.detail or {}
    state = event.state
    if state == domain.PENDING:
        return _("Waiting to be processed")
    if state == domain.WAITING:
        return _waiting(detail, event.attempts)
    if state == domain.SENT:
        return _sent(event, detail)
    if state == domain.NOT_INFORMED:
        return _("Not sent: at this status type the initiator is not informed")
    if state == domain.NOT_TAKING_PART:
        return _("Not sent: case type %(case_type)s does not take part", case_type=detail.get("case_type", ""))
    if state == domain.NO_CONTACT_DETAILS:
        return str(REASONS.get(str(detail.get("reason")), REASONS["no-address"]))
    if state == domain.NO_TEMPLATE:
        channels = ", ".join(_channel({"channel": channel}) for channel in detail.get("channels") or [])
        return _("Not sent: no template for this on the channels the citizen can be reached by (%(channels)s)",
                 channels=channels)
    if state == domain.API_REFUSED and detail.get("code") == domain.ADDRESS_REFUSED:
        return _("Not sent: %(api)s is at an address this service may not reach", api=_api(detail))
    if state == domain.API_REFUSED:
        return _("Not sent: %(api)s refused the request (HTTP %(status)s)", api=_api(detail),
                 status=detail.get("status") or "–")
    if state == domain.OUTSIDE_ROOTS:
        return _("Refused: the message named an address outside this service's APIs")
    if state == domain.SEND_REFUSED:
        return _refused_send(detail)
    return _("Not sent: %(api)s stayed unreachable for three days", api=_api(detail))


def subscription_state(link: CaseEventLink) -> str:
    if link.subscription_state is None:
        return _("Not subscribed yet")
    code = (link.subscription_detail or {}).get("code")
    if code == domain.ADDRESS_REFUSED:
        return _("Not asked: Open Notificaties is at an address this service may not reach")
    if code == domain.CERTIFICATE:
        return _("Open Notificaties could not be reached: its certificate is not trusted")
    said = str(SUBSCRIPTION_STATES.get(link.subscription_state, link.subscription_state))
    status = (link.subscription_detail or {}).get("status")
    return _("%(state)s (answered HTTP %(status)s)", state=said, status=status) if status else said
