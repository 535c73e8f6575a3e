"""Invitations by link: to a service with a role (the team's invite_member calls invite()), or to be the first
platform admin (the set-up link printed by `dev.py run` and the CLI). Password resets by link."""
from __future__ import annotations

import datetime
import uuid

from config import get_settings
from models.db import database, utcnow
from models.platform import current_language
from models.service import Service
from models.user import (
    SERVICE_PERMISSIONS,
    Invitation,
    PasswordReset,
    ServiceUser,
    User,
    find_user_by_email,
    new_token,
    revoke_sessions,
    token_hash,
)
from pipeline.domain.recipients import InvalidRecipient, validate_email_address
from pipeline.domain.wall_clock import on_the_clock
from workers.platform_email import send_platform_email

INVITATION_VALID = datetime.timedelta(days=2)  # as Notify's invitations
SETUP_LINK_VALID = datetime.timedelta(days=1)
RESET_VALID = datetime.timedelta(hours=1)


class InvitationError(ValueError):
    """Input that cannot make an invitation; the message is for the person who entered it."""


def link(path: str) -> str:
    return f"{get_settings().admin_url}{path}"


def invite(service_id: uuid.UUID | str, email_address: str, permissions: list[str], invited_by: User) -> Invitation:
    """Invite someone to a service with these permissions, by email (a link valid for two days)."""
    service = Service.get_or_none(Service.id == service_id)
    if service is None:
        raise InvitationError("service not found")
    unknown = sorted(set(permissions) - set(SERVICE_PERMISSIONS))
    if unknown:
        raise InvitationError(f"unknown permissions: {', '.join(unknown)}")
    try:
        address = validate_email_address(email_address.strip()).lower()
    except InvalidRecipient as problem:
        raise InvitationError(problem.message) from None
    token, hashed = new_token()
    invitation = Invitation.create(service=service, email_address=address, permissions=list(permissions),
                                   invited_by=invited_by, token_hash=hashed, expires_at=utcnow() + INVITATION_VALID)
    _send_invitation(invitation, service, token, invited_by)
    return invitation


def renew_invitation(invitation: Invitation, sent_by: User) -> Invitation:
    """Send a waiting (or expired, not accepted) invitation again: a new link, valid two days from now.
    The link sent before stops working, as only the newest may be in the right hands."""
    service = Service.get_by_id(invitation.service_id)
    token, hashed = new_token()
    invitation.token_hash, invitation.expires_at = hashed, utcnow() + INVITATION_VALID
    renewed = (Invitation.update(token_hash=invitation.token_hash, expires_at=invitation.expires_at)
               .where((Invitation.id == invitation.id) & Invitation.accepted_at.is_null()).execute())
    if not renewed:
        raise InvitationError("invitation already used")
    _send_invitation(invitation, service, token, sent_by)
    return invitation


def _send_invitation(invitation: Invitation, service: Service, token: str, invited_by: User) -> None:
    address = invitation.email_address
    if address is None:  # only the first admin's set-up link has none, and it is printed, never emailed
        raise InvitationError("an invitation without an address is not emailed")
    send_platform_email("invitation", address, {
        "service_name": service.name, "invited_by": invited_by.name, "url": link(f"/invitation/{token}"),
        # On the service's clock, in the email's language, as its team page shows the same invitation.
        "expires": on_the_clock(invitation.expires_at, service.time_zone, current_language()),
    })


def create_setup_link() -> str:
    """A one-time link that makes whoever opens it first a platform admin (valid one day)."""
    token, hashed = new_token()
    Invitation.create(platform_admin=True, token_hash=hashed, expires_at=utcnow() + SETUP_LINK_VALID)
    return link(f"/invitation/{token}")


def setup_link_if_no_admin() -> str | None:
    """A set-up link while the platform has no admin yet (the first start), else None."""
    if User.select().where(User.platform_admin == True).exists():  # noqa: E712
        return None
    return create_setup_link()


def find_invitation(token: str) -> Invitation | None:
    """The open invitation of a link; None when unknown, used or expired."""
    invitation = Invitation.get_or_none(Invitation.token_hash == token_hash(token))
    return invitation if invitation is not None and invitation.is_open() else None


def accept(invitation: Invitation, user: User) -> None:
    """Give the user what the invitation offers, once."""
    with database.atomic():
        claimed = (Invitation.update(accepted_at=utcnow())
                   .where((Invitation.id == invitation.id) & Invitation.accepted_at.is_null()).execute())
        if not claimed:
            raise InvitationError("invitation already used")
        if invitation.platform_admin:
            User.update(platform_admin=True).where(User.id == user.id).execute()
        if invitation.service_id is not None:
            member, created = ServiceUser.get_or_create(user=user, service=invitation.service_id,
                                                        defaults={"permissions": invitation.permissions})
            if not created:
                member.permissions = sorted(set(member.permissions) | set(invitation.permissions))
                member.save()


def request_password_reset(email_address: str) -> None:
    """Email a reset link when the address has an account; says nothing either way (no way to find
    out who has an account)."""
    user = find_user_by_email(email_address)
    if user is None:
        return
    token, hashed = new_token()
    with database.atomic():
        # Only the newest link works: an older one may sit in a mailbox someone else reads.
        close_resets(user)
        PasswordReset.create(user=user, token_hash=hashed, expires_at=utcnow() + RESET_VALID)
    send_platform_email("password-reset", user.email_address, {"url": link(f"/reset-password/{token}")})


def find_reset(token: str) -> PasswordReset | None:
    reset = PasswordReset.get_or_none(PasswordReset.token_hash == token_hash(token))
    if reset is None or reset.used_at is not None or reset.expires_at <= utcnow():
        return None
    return reset


def reset_password(reset: PasswordReset, password_hash: str) -> User:
    """Set the new password once, by this link."""
    with database.atomic():
        claimed = (PasswordReset.update(used_at=utcnow())
                   .where((PasswordReset.id == reset.id) & PasswordReset.used_at.is_null()).execute())
        if not claimed:
            raise InvitationError("reset link already used")
        user = User.get_by_id(reset.user_id)
        set_password(user, password_hash)
    return user


def set_password(user: User, password_hash: str) -> None:
    """Change a password: every session ends and every reset link still out stops working (someone
    else may know the old password, or read the mailbox the links went to)."""
    with database.atomic():
        User.update(password_hash=password_hash).where(User.id == user.id).execute()
        close_resets(user)
        revoke_sessions(user)


def close_resets(user: User) -> None:
    # used_at marks a link closed: used, replaced by a newer one, or void after a password change.
    PasswordReset.update(used_at=utcnow()).where(
        (PasswordReset.user == user) & PasswordReset.used_at.is_null()).execute()
