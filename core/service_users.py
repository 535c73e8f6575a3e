"""The rules of a service's console team: who joins, with which permissions, who may leave.

One place for them, called by the console's pages (console users exist only there). Each change is
recorded in the service's history in the same transaction.
"""
from __future__ import annotations

import uuid

from core.accounts import InvitationError, invite, renew_invitation
from models import audit
from models.db import database
from models.user import SERVICE_PERMISSIONS, Invitation, ServiceUser, User
from pipeline.domain.errors import BadRequestError, NoResultFound, Refusal

# Someone must be able to manage the team: the last member who can is not removed or demoted.
MANAGER = "manage_service"
LAST_MANAGER = Refusal("last_manager", "A service needs at least one member who can manage settings and team")


def _member(service_id: uuid.UUID | str, user_id: uuid.UUID | str) -> ServiceUser:
    member = (ServiceUser.select(ServiceUser, User).join(User)
              .where((ServiceUser.service == service_id) & (ServiceUser.user == user_id)).first())
    if member is None:
        raise NoResultFound()
    return member


def members_of(service_id: uuid.UUID | str) -> list[ServiceUser]:
    return list(ServiceUser.select(ServiceUser, User).join(User)
                .where(ServiceUser.service == service_id).order_by(User.name, User.email_address))


def open_invitations(service_id: uuid.UUID | str) -> list[Invitation]:
    return [i for i in waiting_invitations(service_id) if i.is_open()]


def waiting_invitations(service_id: uuid.UUID | str) -> list[Invitation]:
    """Invitations not accepted yet, expired ones included: they can be sent again or withdrawn."""
    return list(Invitation.select().where((Invitation.service == service_id) & Invitation.accepted_at.is_null())
                .order_by(Invitation.created_at))


def _waiting(service_id: uuid.UUID | str, invitation_id: uuid.UUID | str) -> Invitation:
    found = next((i for i in waiting_invitations(service_id) if str(i.id) == str(invitation_id)), None)
    if found is None:  # another service's, accepted meanwhile, withdrawn, or no invitation at all
        raise NoResultFound()
    return found


def _ordered(permissions: list[str]) -> list[str]:
    unknown = set(permissions) - set(SERVICE_PERMISSIONS)
    if unknown:
        raise BadRequestError(f"Unknown permissions: {', '.join(sorted(unknown))}")
    return [p for p in SERVICE_PERMISSIONS if p in permissions]


def _other_managers(service_id: uuid.UUID | str, user_id: uuid.UUID | str) -> int:
    return sum(1 for m in members_of(service_id) if m.user_id != user_id and MANAGER in (m.permissions or []))


def add_creator(service_id: uuid.UUID | str, user: User) -> ServiceUser:
    """Whoever makes a service is its first member, with every permission."""
    with database.atomic():
        member = ServiceUser.create(user=user, service=service_id, permissions=list(SERVICE_PERMISSIONS))
        audit.record(service_id, "member.add", subject_id=user.id,
                     after={"email_address": user.email_address, "permissions": list(SERVICE_PERMISSIONS)})
    return member


def invite_member(service_id: uuid.UUID | str, email_address: str, permissions: list[str],
                  invited_by: User) -> Invitation:
    """Send an invitation by email (core.accounts' invite), and record it."""
    wanted = _ordered(permissions)
    with database.atomic():
        try:
            invitation = invite(service_id, email_address, wanted, invited_by)
        except InvitationError as problem:
            raise BadRequestError(str(problem)) from None
        audit.record(service_id, "member.invite", subject_id=invitation.id,
                     after={"email_address": invitation.email_address, "permissions": wanted})
    return invitation


def resend_invitation(service_id: uuid.UUID | str, invitation_id: uuid.UUID | str, sent_by: User) -> Invitation:
    """Send a waiting invitation again with a new link valid two days; the earlier link stops working."""
    invitation = _waiting(service_id, invitation_id)
    with database.atomic():
        try:
            renew_invitation(invitation, sent_by)
        except InvitationError:  # accepted in the meantime: the person is a member now
            raise NoResultFound() from None
        audit.record(service_id, "member.invite_resend", subject_id=invitation.id,
                     after={"email_address": invitation.email_address})
    return invitation


def withdraw_invitation(service_id: uuid.UUID | str, invitation_id: uuid.UUID | str) -> Invitation:
    """Take back a waiting invitation: its link stops working and its address is no longer awaited."""
    invitation = _waiting(service_id, invitation_id)
    with database.atomic():
        deleted = Invitation.delete().where((Invitation.id == invitation.id)
                                            & Invitation.accepted_at.is_null()).execute()
        if not deleted:  # accepted in the meantime: the person is a member now
            raise NoResultFound()
        audit.record(service_id, "member.invite_withdraw", subject_id=invitation.id,
                     before={"email_address": invitation.email_address, "permissions": invitation.permissions})
    return invitation


def change_permissions(service_id: uuid.UUID | str, user_id: uuid.UUID | str, permissions: list[str]) -> ServiceUser:
    member = _member(service_id, user_id)
    wanted = _ordered(permissions)
    if MANAGER not in wanted and MANAGER in (member.permissions or []) and not _other_managers(service_id, user_id):
        raise BadRequestError(LAST_MANAGER)
    before = _ordered(member.permissions or [])
    if wanted != before:
        with database.atomic():
            ServiceUser.update(permissions=wanted).where(ServiceUser.id == member.id).execute()
            audit.record(service_id, "member.permissions", subject_id=member.user_id,
                         before={"email_address": member.user.email_address, "permissions": before},
                         after={"email_address": member.user.email_address, "permissions": wanted})
    return _member(service_id, user_id)


def remove_member(service_id: uuid.UUID | str, user_id: uuid.UUID | str) -> None:
    member = _member(service_id, user_id)
    if MANAGER in (member.permissions or []) and not _other_managers(service_id, user_id):
        raise BadRequestError(LAST_MANAGER)
    with database.atomic():
        member.delete_instance()
        audit.record(service_id, "member.remove", subject_id=member.user_id,
                     before={"email_address": member.user.email_address, "permissions": member.permissions})
