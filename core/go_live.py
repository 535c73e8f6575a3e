"""Going live: a service member asks from a checklist, a platform admin approves or rejects, the
service is told by email. The one place that decides what "go live" means, for the admin API, the
CLI and the console.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.services import find_service
from models import audit
from models.db import database, utcnow
from models.go_live import GoLiveRequest, latest_request, pending_request
from models.service import ReplyToAddress, Service, TeamMember
from models.template import Template
from models.user import ServiceUser, User
from pipeline.errors import BadRequestError

# (platform template key, to, personalisation): how the service is told of the decision; the
# caller supplies it, so the decision does not depend on how mail goes out.
EmailSender = Callable[[str, str, dict[str, str]], object]
# The platform's email templates (models/platform.py) for each decision.
APPROVED_TEMPLATE, REJECTED_TEMPLATE = "go-live-approved", "go-live-rejected"

CHECKLIST = {
    "reply_to_address": "Add a reply-to email address",
    "template": "Add a template",
    "team_member": "Add a team member other than you",
}
ALREADY_LIVE = "Service is already live"
ALREADY_REQUESTED = "Going live has already been requested for this service"
NOTHING_TO_DECIDE = "There is no request to go live waiting for a decision"


def unfinished(item: str) -> str:
    """The refusal of a go-live request whose checklist item is not done."""
    return f"{CHECKLIST[item]} before requesting to go live"


@dataclass(frozen=True)
class GoLiveStatus:
    """Where a service stands: live or not, its checklist item by item, and its latest request."""
    trial_mode: bool
    checklist: dict[str, bool]
    request: GoLiveRequest | None


def _other_members(service: Service, requester: audit.Actor) -> list[str]:
    """The service's team other than the requester (email address or phone number): its console
    members, and the team the admin API keeps (who may receive messages in trial mode)."""
    mine = requester.name.lower() if requester.kind == "user" else None
    members = (User.select(User.email_address).join(ServiceUser)
               .where((ServiceUser.service == service) & (User.email_address != (mine or "")))
               .order_by(User.email_address))
    rows = TeamMember.select().where(TeamMember.service == service).order_by(TeamMember.id)
    listed = [m.email_address or m.mobile_number for m in rows if m.email_address is None or m.email_address != mine]
    # core.team.add_team_member, which makes every member, requires an address or a number: none is None.
    return list(dict.fromkeys([u.email_address for u in members] + [m for m in listed if m is not None]))


def checklist(service: Service, requester: audit.Actor) -> dict[str, bool]:
    """What the service has of what going live needs, item by item."""
    templates = Template.select().where((Template.service == service) & (Template.archived == False))  # noqa: E712
    return {
        "reply_to_address": ReplyToAddress.select().where(ReplyToAddress.service == service).exists(),
        "template": templates.exists(),
        "team_member": bool(_other_members(service, requester)),
    }


def go_live_status(service_id: str) -> GoLiveStatus:
    """Where the service stands, with the checklist for whoever asked to go live while a request
    waits (otherwise for the current actor)."""
    service = find_service(service_id)
    latest = latest_request(service)
    asking = audit.current_actor()
    if latest is not None and latest.status == "pending":
        asking = audit.Actor(latest.requested_by_kind, latest.requested_by_id, latest.requested_by_name)
    return GoLiveStatus(service.trial_mode, checklist(service, asking), latest)


def request_go_live(service_id: str) -> GoLiveRequest:
    """Ask to go live, as the current actor; refused while the checklist is incomplete."""
    service = find_service(service_id)
    if not service.trial_mode:
        raise BadRequestError(ALREADY_LIVE)
    requester = audit.current_actor()
    missing = [unfinished(item) for item, done in checklist(service, requester).items() if not done]
    if missing:
        raise BadRequestError(*missing)
    with database.atomic():
        if pending_request(service) is not None:
            raise BadRequestError(ALREADY_REQUESTED)
        row = GoLiveRequest.create(service=service, requested_by_kind=requester.kind,
                                   requested_by_id=requester.id, requested_by_name=requester.name)
        audit.record(service.id, "go_live.request", subject_id=row.id, after={"status": "pending"})
    return row


def _decide(service: Service, status: str, reason: str | None) -> GoLiveRequest | None:
    row = pending_request(service)
    if row is None:
        return None
    row.status, row.decided_by_name, row.decided_at, row.reason = status, audit.current_actor().name, utcnow(), reason
    row.save()
    return row


def _recipients(service: Service, row: GoLiveRequest | None) -> list[str]:
    emails = [row.requested_by_name] if row is not None and row.requested_by_kind == "user" else []
    return list(dict.fromkeys(emails + [m for m in _other_members(service, audit.SYSTEM) if "@" in m]))


def approve_go_live(service_id: str, *, send_email: EmailSender) -> GoLiveStatus:
    """Take the service out of trial mode (a platform admin's decision: with or without a request
    waiting) and tell its team."""
    service = find_service(service_id)
    if not service.trial_mode:
        raise BadRequestError(ALREADY_LIVE)
    with database.atomic():
        Service.update(trial_mode=False, updated_at=utcnow()).where(Service.id == service.id).execute()
        row = _decide(service, "approved", None)
        audit.record(service.id, "go_live.approve", subject_id=row.id if row else None,
                     before={"trial_mode": True}, after={"trial_mode": False})
    for to in _recipients(service, row):
        send_email(APPROVED_TEMPLATE, to, {"service_name": service.name})
    return go_live_status(service_id)


def reject_go_live(service_id: str, reason: str, *, send_email: EmailSender) -> GoLiveStatus:
    """Turn down the waiting request, with the reason the team is told."""
    service = find_service(service_id)
    told = reason.strip()
    with database.atomic():
        row = _decide(service, "rejected", told)
        if row is None:
            raise BadRequestError(NOTHING_TO_DECIDE)
        audit.record(service.id, "go_live.reject", subject_id=row.id, before={"status": "pending"},
                     after={"status": "rejected", "reason": told})
    for to in _recipients(service, row):
        send_email(REJECTED_TEMPLATE, to, {"service_name": service.name, "reason": told})
    return go_live_status(service_id)
