"""The state of a sign-in between the password and the second factor, and where it goes after.

A browser that gave the right password holds a pending user id in its session for a few minutes;
only the second factor turns it into a signed-in session (console.auth.start_session).
"""
from __future__ import annotations

import time

from flask import request, session

from console import redis_state
from console.redirect_target import is_same_site, safe_target
from models.user import User

PENDING_SECONDS = 900
# Per address and per client address, within a quarter of an hour.
ATTEMPTS_PER_EMAIL = 10
ATTEMPTS_PER_CLIENT = 100
CODE_ATTEMPTS = 10
CODES_SENT = 5
WINDOW_SECONDS = 900


def begin(user: User) -> None:
    session["pending_user"] = str(user.id)
    session["pending_at"] = time.time()


def pending_user() -> User | None:
    user_id, at = session.get("pending_user"), session.get("pending_at", 0)
    if not user_id or time.time() - at > PENDING_SECONDS:
        return None
    return User.get_or_none(User.id == user_id)


def remember_next(target: str | None) -> None:
    if is_same_site(target):
        session["next"] = target


def take_next(default: str) -> str:
    return safe_target(session.pop("next", None), default)


def client_address() -> str:
    return request.remote_addr or "unknown"


def allow_password_attempt(email_address: str) -> bool:
    """Count a sign-in attempt against the address and the client; False once either is over its limit."""
    per_email = redis_state.hit(f"sign-in:email:{email_address.lower()}", limit=ATTEMPTS_PER_EMAIL,
                                window_seconds=WINDOW_SECONDS)
    per_client = redis_state.hit(f"sign-in:client:{client_address()}", limit=ATTEMPTS_PER_CLIENT,
                                 window_seconds=WINDOW_SECONDS)
    return per_email and per_client


def allow_code_attempt(user: User) -> bool:
    return redis_state.hit(f"sign-in:code:{user.id}", limit=CODE_ATTEMPTS, window_seconds=WINDOW_SECONDS)


def allow_code_sent(user: User) -> bool:
    return redis_state.hit(f"code-sent:{user.id}", limit=CODES_SENT, window_seconds=WINDOW_SECONDS)


def succeeded(user: User) -> None:
    """A full sign-in clears the user's counters: the limits are for guessing, not for typos."""
    redis_state.reset(f"sign-in:email:{user.email_address}")
    redis_state.reset(f"sign-in:code:{user.id}")
    session.pop("pending_user", None)
    session.pop("pending_at", None)
