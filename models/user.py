"""People who use the web console: accounts, their roles per service, invitations and sessions.

Secrets handed out by link (invitations, password resets, sessions) are stored as SHA-256 hashes
of a random token: a database dump alone cannot be used to sign in or to accept an invitation.
"""
from __future__ import annotations

import datetime
import hashlib
import secrets
import uuid

import peewee

from models.db import BaseModel, EncryptedTextField, JSONField, utcnow, uuid_pk
from models.service import Service

# Notify's per-service permissions, in the order the console lists them.
SERVICE_PERMISSIONS = ("view_activity", "send_messages", "manage_templates", "manage_service", "manage_api_keys")
AUTH_TYPES = ("email", "totp", "sms")


def new_token() -> tuple[str, str]:
    """A random token for a link or cookie, and the hash that is stored."""
    token = secrets.token_urlsafe(32)
    return token, token_hash(token)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class User(BaseModel):
    id = uuid_pk()
    email_address = peewee.CharField(unique=True)  # lower-cased
    name = peewee.CharField()
    password_hash = peewee.CharField()  # argon2id, see core/passwords.py
    platform_admin = peewee.BooleanField(default=False)
    # None until the second factor is set up; a user without one cannot finish signing in.
    auth_type = peewee.CharField(null=True)
    totp_secret = EncryptedTextField(null=True)
    created_at = peewee.DateTimeField(default=utcnow)
    signed_in_at = peewee.DateTimeField(null=True)
    # E.164, set only once a code sent to it came back (core/account_settings.py): the second factor
    # by text message and the trial-mode team both trust it.
    mobile_number = peewee.CharField(null=True)


class ServiceUser(BaseModel):
    """Membership of a service, with what the member may do there."""
    id: int  # peewee's implicit auto-increment key, typed here for mypy
    user = peewee.ForeignKeyField(User, backref="memberships", on_delete="CASCADE")
    user_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    service = peewee.ForeignKeyField(Service, backref="members", on_delete="CASCADE")
    permissions = JSONField(default=list)
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("user", "service"), True),)


class Invitation(BaseModel):
    """An invitation by link: to a service with permissions, or (no service) to be a platform admin."""
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, null=True, backref="invitations", on_delete="CASCADE")
    service_id: uuid.UUID | None  # the key's raw value: peewee's accessor, typed here for mypy
    email_address = peewee.CharField(null=True)  # None: the first admin's set-up link, any address
    permissions = JSONField(default=list)
    platform_admin = peewee.BooleanField(default=False)
    invited_by = peewee.ForeignKeyField(User, null=True, on_delete="SET NULL")
    token_hash = peewee.CharField(unique=True)
    created_at = peewee.DateTimeField(default=utcnow)
    expires_at = peewee.DateTimeField()
    accepted_at = peewee.DateTimeField(null=True)

    def is_open(self) -> bool:
        return self.accepted_at is None and self.expires_at > utcnow()


class PasswordReset(BaseModel):
    id: int  # peewee's implicit auto-increment key, typed here for mypy
    user = peewee.ForeignKeyField(User, backref="password_resets", on_delete="CASCADE")
    user_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    token_hash = peewee.CharField(unique=True)
    created_at = peewee.DateTimeField(default=utcnow)
    expires_at = peewee.DateTimeField()
    used_at = peewee.DateTimeField(null=True)  # closed: used, replaced by a newer link or void after a password change


class EmailChange(BaseModel):
    """A change of a user's email address, waiting for its link (sent to the new address) to be followed."""
    id: int  # peewee's implicit auto-increment key, typed here for mypy
    user = peewee.ForeignKeyField(User, backref="email_changes", on_delete="CASCADE")
    user_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    new_email_address = peewee.CharField()  # lower-cased
    token_hash = peewee.CharField(unique=True)
    created_at = peewee.DateTimeField(default=utcnow)
    expires_at = peewee.DateTimeField()
    used_at = peewee.DateTimeField(null=True)  # closed: used, or replaced by a newer request


class UserSession(BaseModel):
    """A signed-in browser. The cookie carries only the token; the row decides whether it is valid,
    so a session can be revoked (signing out everywhere) and expires after inactivity or its lifetime."""
    user = peewee.ForeignKeyField(User, backref="sessions", on_delete="CASCADE")
    token_hash = peewee.CharField(unique=True)
    created_at = peewee.DateTimeField(default=utcnow)
    last_seen_at = peewee.DateTimeField(default=utcnow)
    revoked_at = peewee.DateTimeField(null=True)
    user_agent = peewee.CharField(null=True)

    def is_active(self, idle_timeout: datetime.timedelta, lifetime: datetime.timedelta) -> bool:
        now = utcnow()
        return (self.revoked_at is None and now - self.last_seen_at < idle_timeout
                and now - self.created_at < lifetime)


USER_TABLES = [User, ServiceUser, Invitation, PasswordReset, EmailChange, UserSession]


def find_user_by_email(email_address: str) -> User | None:
    return User.get_or_none(User.email_address == email_address.strip().lower())


def services_of(user: User) -> list[Service]:
    """The services a user may open in the console: every service for a platform admin."""
    if user.platform_admin:
        return list(Service.select().order_by(Service.name))
    return list(Service.select().join(ServiceUser).where(ServiceUser.user == user).order_by(Service.name))


def membership(user: User, service_id: object) -> ServiceUser | None:
    return ServiceUser.get_or_none((ServiceUser.user == user) & (ServiceUser.service == service_id))


def permissions_in(user: User, service_id: object) -> set[str] | None:
    """What the user may do in a service; None when they do not belong to it. A platform admin
    may do everything everywhere."""
    if user.platform_admin:
        return set(SERVICE_PERMISSIONS)
    member = membership(user, service_id)
    return None if member is None else set(member.permissions or [])


def revoke_sessions(user: User) -> int:
    """Sign a user out everywhere; returns how many sessions were open."""
    return (UserSession.update(revoked_at=utcnow())
            .where((UserSession.user == user) & UserSession.revoked_at.is_null()).execute())
