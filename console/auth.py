"""Who is signed in, and the decorators every console view uses to enforce it on the server.

The session cookie carries only a random token; the `UserSession` row it names decides whether it is
still valid (not revoked, not idle longer than CONSOLE_SESSION_IDLE_MINUTES, not older than
CONSOLE_SESSION_MAX_HOURS). A view of a service
takes `service_id` in its URL: someone who does not belong to that service gets 404 (the service's
existence is not revealed), a member without the permission gets 403.
"""
from __future__ import annotations

import datetime
import functools
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from flask import abort, g, redirect, request, session, url_for

from config import get_settings
from console.redirect_target import is_same_site
from models.db import utcnow
from models.service import Service
from models.user import SERVICE_PERMISSIONS, User, UserSession, new_token, permissions_in, token_hash

View = TypeVar("View", bound=Callable[..., Any])
SESSION_TOKEN = "sid"
# last_seen_at is written at most this often: a write per page view would be a write per click.
TOUCH_INTERVAL = datetime.timedelta(seconds=30)


def idle_timeout() -> datetime.timedelta:
    return datetime.timedelta(minutes=get_settings().console_session_idle_minutes)


def lifetime() -> datetime.timedelta:
    """However active, a session ends this long after its sign-in: a stolen cookie is not good forever."""
    return datetime.timedelta(hours=get_settings().console_session_max_hours)


def current_user() -> User | None:
    """The signed-in user of this request, or None."""
    return g.get("user")


def current_service() -> Service | None:
    """The service of a view guarded by service_permission_required."""
    return g.get("service")


def current_permissions() -> set[str]:
    """What the signed-in user may do in current_service() (every permission for a platform admin)."""
    return g.get("service_permissions", set())


def load_session() -> None:
    """Before each request: find the session row of the cookie and its user."""
    g.user = None
    token = session.get(SESSION_TOKEN)
    if not token:
        return
    row = (UserSession.select(UserSession, User).join(User)
           .where(UserSession.token_hash == token_hash(token)).first())
    if row is None or not row.is_active(idle_timeout(), lifetime()):
        session.pop(SESSION_TOKEN, None)
        # The sign-in page says why: a session that reached its lifetime was not idle.
        g.session_ended = "lifetime" if row is not None and utcnow() - row.created_at >= lifetime() else "1"
        return
    now = utcnow()
    if now - row.last_seen_at > TOUCH_INTERVAL:
        UserSession.update(last_seen_at=now).where(UserSession.id == row.id).execute()
    g.user = row.user
    g.user_session = row


def start_session(user: User) -> None:
    """Sign the user in on this browser: a new session row and token (never reuse one from before)."""
    token, hashed = new_token()
    UserSession.create(user=user, token_hash=hashed, user_agent=(request.user_agent.string or "")[:250])
    User.update(signed_in_at=utcnow()).where(User.id == user.id).execute()
    language = session.get("lang")
    session.clear()
    if language:
        session["lang"] = language
    session[SESSION_TOKEN] = token
    g.user = user


def end_session() -> None:
    """Sign out this browser: its row is revoked, so a copy of the cookie is worthless too."""
    row = g.get("user_session")
    if row is not None:
        UserSession.update(revoked_at=utcnow()).where(UserSession.id == row.id).execute()
    language = session.get("lang")
    session.clear()
    if language:
        session["lang"] = language
    g.user = None


def _to_sign_in() -> Any:
    target = request.full_path if request.query_string else request.path
    # A path that could not be followed back is not carried through the sign-in at all.
    back = {"next": target} if is_same_site(target) else {}
    if g.get("session_ended"):
        return redirect(url_for("accounts.sign_in", **back, ended=g.session_ended))
    return redirect(url_for("accounts.sign_in", **back))


def login_required(view: View) -> View:
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if current_user() is None:
            return _to_sign_in()
        return view(*args, **kwargs)
    return wrapped  # type: ignore[return-value]


def platform_admin_required(view: View) -> View:
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        user = current_user()
        if user is None:
            return _to_sign_in()
        if not user.platform_admin:
            abort(403)
        return view(*args, **kwargs)
    return wrapped  # type: ignore[return-value]


def service_permission_required(permission: str) -> Callable[[View], View]:
    """Guard a view of one service (its URL names `service_id`): 404 unless the user belongs to
    that service (or is a platform admin), 403 unless their role there includes `permission`."""
    if permission not in SERVICE_PERMISSIONS:
        raise ValueError(f"unknown permission {permission!r}")

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            user = current_user()
            if user is None:
                return _to_sign_in()
            service_id = _parse_uuid(kwargs.get("service_id"))
            service = Service.get_or_none(Service.id == service_id) if service_id else None
            permissions = permissions_in(user, service_id) if service is not None else None
            if permissions is None:
                abort(404)
            if permission not in permissions:
                abort(403)
            g.service, g.service_permissions = service, permissions
            return view(*args, **kwargs)
        return wrapped  # type: ignore[return-value]
    return decorate


def _parse_uuid(value: object) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None
