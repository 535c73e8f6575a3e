"""Console accounts for tests, made directly in the database (the pages that make them have their own tests)."""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field

import pyotp

from core.passwords import hash_password
from models.service import Service
from models.user import ServiceUser, User

PASSWORD = "correct horse battery staple"


@dataclass
class ConsoleUser:
    user: User
    email_address: str
    password: str
    totp_secret: str
    used_codes: set[str] = field(default_factory=set)

    @property
    def id(self) -> str:
        return str(self.user.id)


def create_console_user(*, platform_admin: bool = False, service: Service | None = None,
                        permissions: list[str] | None = None, email_address: str | None = None,
                        name: str = "Test User") -> ConsoleUser:
    """A user with a password and a TOTP second factor; a member of `service` with `permissions`."""
    email = email_address or f"user-{uuid.uuid4().hex[:10]}@example.gov.nl"
    secret = pyotp.random_base32()
    user = User.create(email_address=email, name=name, password_hash=hash_password(PASSWORD),
                       platform_admin=platform_admin, auth_type="totp", totp_secret=secret)
    if service is not None:
        ServiceUser.create(user=user, service=service, permissions=list(permissions or []))
    return ConsoleUser(user=user, email_address=email, password=PASSWORD, totp_secret=secret)


def totp_now(user: ConsoleUser) -> str:
    """A code the server accepts now that this test has not used yet (each code works once)."""
    totp = pyotp.TOTP(user.totp_secret)
    for offset in (0, 30, -30):
        code = totp.at(time.time() + offset)
        if code not in user.used_codes:
            user.used_codes.add(code)
            return code
    raise AssertionError("every code of this minute is used: sign in less often in one test")
