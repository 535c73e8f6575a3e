"""A service's case-events link (issue 52): where its ZGW APIs are and the credentials they take, which
case types take part, the template of each scenario per channel, and its subscription at Open
Notificaties; what Open Notificaties posts to us (`receive`); the events kept, per case.

Credentials are sealed at rest (models.db.EncryptedTextField) and never read back out by a door: the
admin API and the console say only whether one is set. The Authorization value Open Notificaties sends
us is a random secret of ours, made once per link.
"""
from __future__ import annotations

import hmac
import secrets
import uuid
from collections.abc import Mapping
from typing import Any

import peewee

from config import get_settings
from core.ids import checked_uuid
from core.services import find_service
from models import audit
from models.case_event import CaseEvent, CaseEventLink
from models.db import database, utcnow
from models.service import Service
from models.template import find_version
from pipeline.domain import case_events as domain
from pipeline.domain.errors import AuthError, BadRequestError, NoResultFound, Refusal, ValidationError
from pipeline.infrastructure import outbound
from pipeline.stages.case_events import subscription
from pipeline.stages.case_events.subscription import CALLBACK_PATH, callback_url
from workers.case_events import enqueue_event

ROOTS = ("zaken_root", "catalogi_root", "klant_root")
MAX_ROOT = 1000
MAX_CLIENT_ID = 255
MAX_SECRET = 1000
SECRET_CHANGED = "(changed)"  # what the history records of a credential that was set
# Open Notificaties refuses a longer callbackUrl (Abonnement.callbackUrl maxLength: open-zaak/open-notificaties
# src/openapi.yaml, as the Notificaties API 1.0 it implements), answering a bare 400.
MAX_CALLBACK_URL = 200
NOT_AUTHORISED = "Not authorised"  # the one answer to any Authorization we did not give
# The refusals the console words in Dutch (console/case_events/views.py), by their codes.
HAS_QUERY = "{field} must not have a query or a fragment"
NOT_LISTED = "{field} must be a public internet address or one in CASE_EVENTS_PRIVATE_NETWORKS"
REQUIRED = "{field} is required"
BAD_TEXT = "{field} must be 1 to {limit} characters"
TEMPLATE_NOT_FOUND = "templates {scenario} {channel} template {template_id} not found"
TEMPLATE_OF_ANOTHER_CHANNEL = "templates {scenario} {channel} template is a {kind} template"
NO_NRC = Refusal("case_events_no_nrc", "nrc_root is required to subscribe")
CALLBACK_TOO_LONG = ("callback_url is {length} characters long, and Open Notificaties takes at most {limit}: "
                     "BASE_URL must be shorter")
NOT_RETRYABLE = "event {event_id} is {state}: only one that ended without a message is tried again"


def callback_url_problem() -> Refusal | None:
    """Why Open Notificaties cannot post to this service's links: every link's address (the same length,
    a uuid at its end) too long for it. Checked where a link is saved and where it subscribes."""
    length = len(f"{get_settings().base_url}{CALLBACK_PATH}") + len(str(uuid.UUID(int=0)))
    if length <= MAX_CALLBACK_URL:
        return None
    return Refusal.filled("case_events_callback_too_long", CALLBACK_TOO_LONG, length=length, limit=MAX_CALLBACK_URL)


def link_of(service_id: object) -> CaseEventLink | None:
    return CaseEventLink.get_or_none(CaseEventLink.service == service_id)


def find_link(service_id: str) -> CaseEventLink:
    """The service's link: 400 for a malformed id, 404 for an unknown service or no link."""
    link = link_of(find_service(service_id).id)
    if link is None:
        raise NoResultFound()
    return link


def root_problem(field: str, value: str) -> str | None:
    """Why a root is refused: as a callback URL is (https to a public address; loopback only where
    CALLBACKS_ALLOW_HTTP_LOOPBACK allows it), or to an address inside CASE_EVENTS_PRIVATE_NETWORKS (the
    same check is made again at every connection), with no query or fragment, at most MAX_ROOT long."""
    networks = outbound.private_networks()
    problem = outbound.url_problem(value, allow_loopback=outbound.loopback_allowed(), networks=networks)
    if problem is outbound.NOT_PUBLIC and networks:
        return Refusal.filled("case_events_root_not_listed", NOT_LISTED, field=field)
    if problem:
        return problem.about(field)
    if "?" in value or "#" in value:
        return Refusal.filled("case_events_root_query", HAS_QUERY, field=field)
    if len(value) > MAX_ROOT:
        return f"{field} is too long"
    return None


def _root(value: str) -> str:
    return value if value.endswith("/") else value + "/"


def _text_problems(values: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    for field, limit in (("client_id", MAX_CLIENT_ID), ("nrc_client_id", MAX_CLIENT_ID), ("client_secret", MAX_SECRET),
                         ("klant_token", MAX_SECRET), ("nrc_secret", MAX_SECRET)):
        value = values.get(field)
        if value is not None and (not value.strip() or len(value) > limit):
            problems.append(Refusal.filled("case_events_bad_text", BAD_TEXT, field=field, limit=limit))
    return problems


def checked_case_types(case_types: list[str]) -> list[str]:
    """The zaaktype identificaties taking part, each once, in the order given."""
    cleaned = list(dict.fromkeys(value.strip() for value in case_types if value.strip()))
    if len(cleaned) > domain.MAX_CASE_TYPES:
        raise ValidationError(f"case_types has more than {domain.MAX_CASE_TYPES} items")
    if too_long := [value for value in cleaned if len(value) > domain.MAX_IDENTIFICATIE]:
        raise ValidationError(f"case_types {too_long[0]} is longer than {domain.MAX_IDENTIFICATIE} characters")
    return cleaned


def checked_templates(service: Service, templates: Mapping[str, Mapping[str, str | None]]) -> dict[str, dict[str, str]]:
    """{scenario: {channel: template id}}: each a current template of the service, of that channel."""
    checked: dict[str, dict[str, str]] = {}
    for scenario, channels in templates.items():
        if scenario not in domain.SCENARIOS:
            raise ValidationError(f"templates {scenario} is not one of [{', '.join(domain.SCENARIOS)}]")
        for channel, template_id in channels.items():
            if channel not in domain.CHANNELS:
                raise ValidationError(f"templates {scenario} {channel} is not one of [{', '.join(domain.CHANNELS)}]")
            if not template_id:
                continue
            version = find_version(service, checked_uuid("template_id", template_id))
            if version is None:
                raise BadRequestError(Refusal.filled("case_events_template_not_found", TEMPLATE_NOT_FOUND,
                                                     scenario=scenario, channel=channel, template_id=template_id))
            if version.template.template_type != channel:
                raise BadRequestError(Refusal.filled("case_events_template_channel", TEMPLATE_OF_ANOTHER_CHANNEL,
                                                     scenario=scenario, channel=channel,
                                                     kind=version.template.template_type))
            checked.setdefault(scenario, {})[channel] = str(version.template.id)
    return checked


def _shown(link: CaseEventLink | None) -> dict[str, Any] | None:
    """What the history records of a link: never a credential."""
    if link is None:
        return None
    return {**{field: getattr(link, field) for field in (*ROOTS, "nrc_root", "client_id", "nrc_client_id")},
            "case_types": list(link.case_types or []),
            # The templates chosen, by id: the history words no scenario or channel code.
            "templates": sorted({template for chosen in (link.templates or {}).values()
                                 for template in chosen.values()})}


def set_link(service_id: str, values: Mapping[str, Any]) -> CaseEventLink:
    """Create or change the service's link. `values`: the roots, client_id, and the credentials
    (client_secret, klant_token; nrc_root, nrc_client_id, nrc_secret optional); a credential left
    out keeps the one set; case_types and templates when given. The first save needs every
    credential."""
    service = find_service(service_id)
    existing = link_of(service.id)
    problems = [problem for field in ROOTS if (problem := root_problem(field, values[field]))]
    if values.get("nrc_root") and (problem := root_problem("nrc_root", values["nrc_root"])):
        problems.append(problem)
    problems += _text_problems(values)
    if too_long := callback_url_problem():
        problems.append(too_long)
    if existing is None:
        problems += [Refusal.filled("case_events_required", REQUIRED, field=field)
                     for field in ("client_secret", "klant_token") if not values.get(field)]
    if problems:
        raise ValidationError(*problems)
    fields: dict[str, Any] = {field: _root(values[field]) for field in ROOTS}
    fields.update(client_id=values["client_id"].strip(), updated_at=utcnow(),
                  nrc_root=_root(values["nrc_root"]) if values.get("nrc_root") else None,
                  nrc_client_id=(values.get("nrc_client_id") or "").strip() or None)
    fields.update({field: values[field] for field in ("client_secret", "klant_token", "nrc_secret")
                   if values.get(field)})
    if "case_types" in values:
        fields["case_types"] = checked_case_types(values["case_types"])
    if "templates" in values:
        fields["templates"] = checked_templates(service, values["templates"])
    return _save(service, existing, fields, changed=[f for f in ("client_secret", "klant_token", "nrc_secret")
                                                     if values.get(f)])


def _save(service: Service, existing: CaseEventLink | None, fields: dict[str, Any],
          changed: list[str]) -> CaseEventLink:
    with database.atomic():
        if existing is None:
            link = CaseEventLink.create(service=service, callback_auth="Bearer " + secrets.token_urlsafe(32),
                                        **fields)
        else:
            CaseEventLink.update(fields).where(CaseEventLink.id == existing.id).execute()
            link = CaseEventLink.get_by_id(existing.id)
        audit.record(service.id, "case_events.set", before=_shown(existing),
                     after={**(_shown(link) or {}), **{field: SECRET_CHANGED for field in changed}})
    return link


def set_case_types(service_id: str, case_types: list[str]) -> CaseEventLink:
    link = find_link(service_id)
    return _save(link.service, link, {"case_types": checked_case_types(case_types), "updated_at": utcnow()}, [])


def set_templates(service_id: str, templates: Mapping[str, Mapping[str, str | None]]) -> CaseEventLink:
    link = find_link(service_id)
    return _save(link.service, link, {"templates": checked_templates(link.service, templates),
                                      "updated_at": utcnow()}, [])


def remove_link(service_id: str) -> None:
    """Remove the link, its events and (as well as it can) its subscription at Open Notificaties."""
    link = find_link(service_id)
    subscription.remove(link, link.service.name)
    with database.atomic():
        CaseEventLink.delete().where(CaseEventLink.id == link.id).execute()
        audit.record(link.service_id, "case_events.remove", before=_shown(link))


def _keep_subscription(link: CaseEventLink, found: subscription.Found) -> CaseEventLink:
    subscription.keep(link, found)
    return CaseEventLink.get_by_id(link.id)


def register(service_id: str) -> CaseEventLink:
    """Subscribe the link at Open Notificaties (again), and keep what it said."""
    link = find_link(service_id)
    if not link.nrc_root:
        raise ValidationError(NO_NRC)
    if too_long := callback_url_problem():
        raise ValidationError(too_long)
    found = subscription.register(link, callback_url(link), link.service.name)
    with database.atomic():
        link = _keep_subscription(link, found)
        audit.record(link.service_id, "case_events.subscribe", after={"state": found.state})
    return link


def check(service_id: str) -> CaseEventLink:
    """Read the subscription back from Open Notificaties, and keep whether it holds."""
    link = find_link(service_id)
    return _keep_subscription(link, subscription.check(link, callback_url(link), link.service.name))


def authorised_link(link_id: str, authorization: str | None) -> CaseEventLink:
    """The link Open Notificaties posts to, when the post carries the Authorization value we gave it
    (compared in constant time); AuthError for any other value, none, or an unknown link."""
    link = CaseEventLink.get_or_none(CaseEventLink.id == link_id) if _is_uuid(link_id) else None
    expected = link.callback_auth if link is not None else secrets.token_hex(32)
    # Compared even without a link, so the answer's timing does not tell a link that exists from one that does not.
    if not hmac.compare_digest((authorization or "").encode(), expected.encode()) or link is None:
        raise AuthError(NOT_AUTHORISED)
    return link


def receive(link: CaseEventLink, message: Mapping[str, Any]) -> str | None:
    """What Open Notificaties posted to a link: a status set on a case is recorded once (a message
    posted again is the one recorded) and handed to the stage after the commit. The id of the event,
    or None for a message that is not one to act on (the test message among them)."""
    if not domain.is_case_status(message):
        return None
    key = domain.message_key(message)
    try:
        with database.atomic():
            event = CaseEvent.create(link=link.id, service=link.service_id, message_key=key, message=dict(message),
                                     state=domain.PENDING, next_attempt_at=utcnow())
            enqueue_event(str(event.id))
    except peewee.IntegrityError:
        found = CaseEvent.get_or_none((CaseEvent.link == link.id) & (CaseEvent.message_key == key))
        return str(found.id) if found is not None else None
    return str(event.id)


def _is_uuid(value: str) -> bool:
    try:
        checked_uuid("link_id", value)
    except ValidationError:
        return False
    return True


def list_events(service_id: str, *, zaak: str | None = None, older_than: uuid.UUID | None = None,
                limit: int = 50) -> list[CaseEvent]:
    """The service's events newest first; one case's when zaak (its identificatie) is given; those after
    the event older_than (the last of the page before: a keyset, so a page costs the same however far
    back), none when that is not one of the service's events."""
    service = find_service(service_id)
    query = CaseEvent.select().where(CaseEvent.service == service.id)
    if zaak is not None:
        query = query.where(CaseEvent.zaak_identificatie == zaak)
    if older_than is not None:
        cursor = CaseEvent.get_or_none((CaseEvent.id == older_than) & (CaseEvent.service == service.id))
        if cursor is None:
            return []
        # The values through the fields' own conversion: a row value bypasses the one peewee applies to a field.
        query = query.where(peewee.Tuple(CaseEvent.received_at, CaseEvent.id) < peewee.Tuple(
            CaseEvent.received_at.db_value(cursor.received_at), CaseEvent.id.db_value(cursor.id)))
    return list(query.order_by(CaseEvent.received_at.desc(), CaseEvent.id.desc()).limit(limit))


def find_event(service_id: str, event_id: str) -> CaseEvent:
    service = find_service(service_id)
    event = CaseEvent.get_or_none((CaseEvent.id == checked_uuid("event_id", event_id))
                                  & (CaseEvent.service == service.id))
    if event is None:
        raise NoResultFound()
    return event


RETRYABLE = frozenset({domain.API_REFUSED, domain.GAVE_UP, domain.SEND_REFUSED, domain.NO_TEMPLATE,
                       domain.NOT_TAKING_PART, domain.NO_CONTACT_DETAILS})


def retry_event(service_id: str, event_id: str) -> CaseEvent:
    """Process an event again that ended without a message (after its cause was put right: an
    authorisation in Open Zaak, a template, a case type added)."""
    event = find_event(service_id, event_id)
    if event.state not in RETRYABLE:
        raise BadRequestError(Refusal.filled("case_events_not_retryable", NOT_RETRYABLE, event_id=event_id,
                                             state=event.state))
    with database.atomic():
        CaseEvent.update(state=domain.PENDING, detail=None, attempts=0, next_attempt_at=utcnow(),
                         updated_at=utcnow()).where(CaseEvent.id == event.id).execute()
        audit.record(event.service_id, "case_events.retry", subject_id=event.id)
        enqueue_event(str(event.id))
    return CaseEvent.get_by_id(event.id)
