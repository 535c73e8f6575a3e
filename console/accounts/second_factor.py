"""The second factor of every sign-in: a code sent by email, or a TOTP app."""
from __future__ import annotations

import hmac
import secrets

import pyotp
import segno
from markupsafe import Markup

from console import redis_state
from models.user import token_hash

CODE_TTL_SECONDS = 600
ISSUER = "Notify NL"


def send_email_code(user_id: str, email_address: str) -> None:
    """Send a fresh six-digit code (replacing any earlier one) through the platform's own pipeline."""
    from workers.platform_email import send_platform_email

    code = f"{secrets.randbelow(10**6):06d}"
    redis_state.store(f"email-code:{user_id}", token_hash(code), ttl_seconds=CODE_TTL_SECONDS)
    send_platform_email("sign-in-code", email_address, {"code": code})


def check_email_code(user_id: str, code: str) -> bool:
    """True once for the code last sent to this user, within its ten minutes."""
    stored = redis_state.fetch(f"email-code:{user_id}")
    if stored is None or not hmac.compare_digest(stored, token_hash(code.strip())):
        return False
    redis_state.forget(f"email-code:{user_id}")
    return True


def new_totp_secret() -> str:
    return pyotp.random_base32()


def totp_uri(secret: str, email_address: str) -> str:
    return pyotp.TOTP(secret).provisioning_uri(name=email_address, issuer_name=ISSUER)


def qr_code_svg(uri: str) -> Markup:
    """The QR code as inline SVG, made on the server (the page needs no JavaScript)."""
    svg = segno.make(uri, error="m").svg_inline(scale=5, dark="#000", light="#fff", omitsize=False)
    return Markup(svg.replace("<svg ", '<svg role="img" aria-labelledby="qr-title" ', 1)
                  .replace(">", '><title id="qr-title">QR code</title>', 1))


def check_totp(user_id: str, secret: str, code: str) -> bool:
    """True for the current code (or the one before or after, for clock drift), once: a code seen
    over someone's shoulder cannot be used again."""
    code = code.strip().replace(" ", "")
    if not pyotp.TOTP(secret).verify(code, valid_window=1):
        return False
    return redis_state.claim_once(f"totp-used:{user_id}:{code}", ttl_seconds=120)
