"""Going live: a service member asks from a checklist, with the team's answers (expected volumes per
channel, who the recipients are); the admin of the service's organisation approves first, when the
body has one; then a platform admin approves or rejects, and the service is told by email. The one
place that decides what "go live" means, for the admin API, the CLI and the console.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from config import get_settings
from core.organisation_members import admins_of
from core.service_users import open_invitations
from core.services import find_service
from models import audit
from models.db import database, utcnow
from models.go_live import GoLiveRequest, latest_request, pending_request
from models.organisation import ADMIN, organisation_of, role_in
from models.service import ReplyToAddress, Service, TeamMember
from models.template import Template
from models.user import ServiceUser, User
from pipeline.domain.errors import BadRequestError, NoResultFound, NotPermitted, Refusal

# (platform template key, to, personalisation): how the service is told of the decision; the
# caller supplies it, so the decision does not depend on how mail goes out.
EmailSender = Callable[[str, str, dict[str, str]], object]
# The platform's email templates (models/platform.py) for each decision.
APPROVED_TEMPLATE, REJECTED_TEMPLATE = "go-live-approved", "go-live-rejected"
AWAITS_ORGANISATION_TEMPLATE = "go-live-awaits-organisation"
ORGANISATION_APPROVED_TEMPLATE = "go-live-organisation-approved"

CHECKLIST = {
    "reply_to_address": "Add a reply-to email address",
    "template": "Add a template",
    "team_member": "Add a team member other than you",
}
ALREADY_LIVE = Refusal("already_live", "Service is already live")
ALREADY_REQUESTED = Refusal("go_live_already_requested", "Going live has already been requested for this service")
NOTHING_TO_DECIDE = Refusal("go_live_nothing_to_decide", "There is no request to go live waiting for a decision")
ANSWERS_NEEDED = Refusal("go_live_answers_needed",
                         "Say how many messages you expect per channel and who receives them")
AWAITS_ORGANISATION = Refusal("go_live_awaits_organisation",
                              "The organisation's admin has not approved this request yet")
NOT_FOR_ORGANISATION = Refusal("go_live_not_for_organisation",
                               "There is no request to go live waiting for the organisation's approval")
ONLY_ADMINS = Refusal("only_organisation_admins", "Only an admin of the organisation or a platform admin can do this")
VOLUME_CHANNELS = ("email", "sms", "letter")


def unfinished(item: str) -> Refusal:
    """The refusal of a go-live request whose checklist item is not done."""
    return Refusal("go_live_unfinished", f"{CHECKLIST[item]} before requesting to go live", {"item": item})


@dataclass(frozen=True)
class GoLiveStatus:
    """Where a service stands: live or not, its checklist item by item, and its latest request."""
    trial_mode: bool
    checklist: dict[str, bool]
    request: GoLiveRequest | None
    # Addresses invited to the team whose invitation waits to be accepted: an invited person counts as
    # a team member only once they accept, so the checklist says whom it waits for.
    invited: tuple[str, ...] = ()


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
    invited = tuple(i.email_address for i in open_invitations(service.id) if i.email_address)
    return GoLiveStatus(service.trial_mode, checklist(service, asking), latest, invited)


def _answers(expected_volumes: dict[str, int] | None, recipients: str | None,
             required: bool) -> tuple[dict[str, int] | None, str | None]:
    volumes = {c: int(n) for c, n in (expected_volumes or {}).items() if c in VOLUME_CHANNELS and n is not None}
    who = (recipients or "").strip() or None
    if required and (not volumes or who is None):
        raise BadRequestError(ANSWERS_NEEDED)
    return volumes or None, who


def request_go_live(service_id: str, *, send_email: EmailSender, expected_volumes: dict[str, int] | None = None,
                    recipients: str | None = None) -> GoLiveRequest:
    """Ask to go live, as the current actor; refused while the checklist is incomplete. A service of an
    organisation with an admin needs the team's answers: that admin decides first, and its admins are
    told by email where to decide."""
    service = find_service(service_id)
    if not service.trial_mode:
        raise BadRequestError(ALREADY_LIVE)
    requester = audit.current_actor()
    missing = [unfinished(item) for item, done in checklist(service, requester).items() if not done]
    if missing:
        raise BadRequestError(*missing)
    organisation = organisation_of(service.id)
    admins = admins_of(organisation.id) if organisation is not None else []
    approver = organisation if admins else None
    volumes, who = _answers(expected_volumes, recipients, required=approver is not None)
    with database.atomic():
        if pending_request(service) is not None:
            raise BadRequestError(ALREADY_REQUESTED)
        row = GoLiveRequest.create(service=service, requested_by_kind=requester.kind,
                                   requested_by_id=requester.id, requested_by_name=requester.name,
                                   expected_volumes=volumes, recipients=who,
                                   organisation_id=approver.id if approver else None)
        audit.record(service.id, "go_live.request", subject_id=row.id,
                     after={"status": "pending", "expected_volumes": volumes, "recipients": who,
                            "organisation": approver.name if approver else None})
    if approver is not None:
        url = f"{get_settings().admin_url}/organisations/{approver.id}/go-live/{service.id}"
        for to in admins:
            send_email(AWAITS_ORGANISATION_TEMPLATE, to, {
                "service_name": service.name, "organisation_name": approver.name,
                "requested_by": requester.name, "url": url})
    return row


def check_organisation_step(user: User | None, service: Service) -> None:
    """Whether `user` may approve or turn down the service's request for its organisation. The admin
    client (no user) and platform admins may; anyone else only as an admin of the service's
    organisation while the request waits for that organisation: NoResultFound for a user outside it,
    ONLY_ADMINS (403) for a member, NOT_FOR_ORGANISATION (400) when nothing waits for it."""
    if user is None or user.platform_admin:
        return
    organisation = organisation_of(service.id)
    role = None if organisation is None else role_in(user, organisation.id)
    if organisation is None or role is None:
        raise NoResultFound()
    if role != ADMIN:
        raise NotPermitted(ONLY_ADMINS)
    row = pending_request(service)
    if row is None or not row.awaits_organisation or row.organisation_id != organisation.id:
        raise BadRequestError(NOT_FOR_ORGANISATION)


def approve_for_organisation(service_id: str, *, send_email: EmailSender) -> GoLiveStatus:
    """The organisation admin's approval: the request goes on to the platform admin, and the team is
    told so."""
    service = find_service(service_id)
    with database.atomic():
        row = pending_request(service)
        if row is None or not row.awaits_organisation:
            raise BadRequestError(NOT_FOR_ORGANISATION)
        row.organisation_approved_by_name, row.organisation_approved_at = audit.current_actor().name, utcnow()
        row.save()
        audit.record(service.id, "go_live.organisation_approve", subject_id=row.id,
                     before={"status": "pending"}, after={"status": "pending", "organisation_approved": True})
    organisation = organisation_of(service.id)
    for to in _recipients(service, row):
        send_email(ORGANISATION_APPROVED_TEMPLATE, to, {
            "service_name": service.name, "organisation_name": organisation.name if organisation else ""})
    return go_live_status(service_id)


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
    waiting = pending_request(service)
    if waiting is not None and waiting.awaits_organisation:
        raise BadRequestError(AWAITS_ORGANISATION)
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
