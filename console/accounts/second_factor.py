"""The second factor of every sign-in: a code sent by email or by text message, or a TOTP app. A code
by text message also confirms a new mobile number (console/account_settings)."""
from __future__ import annotations

import hmac
import secrets

import pyotp
import segno
from flask import session
from markupsafe import Markup

from console import redis_state
from models.user import token_hash

CODE_TTL_SECONDS = 600
ISSUER = "Notify NL"
# The ids of the codes this browser had texted, newest last (console/mailbox shows these texts to it).
TEXTED_CODES = "texted_codes"
TEXTED_KEPT = 5


def _new_code(key: str) -> str:
    """A fresh six-digit code, replacing any earlier one under key; only its hash is kept."""
    code = f"{secrets.randbelow(10**6):06d}"
    redis_state.store(key, token_hash(code), ttl_seconds=CODE_TTL_SECONDS)
    return code


def _take_code(key: str, code: str) -> bool:
    """True once for the code last stored under key, within its ten minutes."""
    stored = redis_state.fetch(key)
    if stored is None or not hmac.compare_digest(stored, token_hash(code.strip())):
        return False
    redis_state.forget(key)
    return True


def send_email_code(user_id: str, email_address: str) -> None:
    """Send a fresh code through the platform's own pipeline."""
    from workers.platform_email import send_platform_email

    send_platform_email("sign-in-code", email_address, {"code": _new_code(f"email-code:{user_id}")})


def check_email_code(user_id: str, code: str) -> bool:
    return _take_code(f"email-code:{user_id}", code)


def send_sms_code(user_id: str, mobile_number: str) -> None:
    """Text a fresh code to the number (E.164) through the platform's own pipeline. The code is kept
    for that number only: a code sent to one number never confirms another. The browser that asked
    remembers the text: without an SMS gateway the local mailbox shows it that text (console/mailbox)."""
    from workers.platform_email import send_platform_sms

    sent = send_platform_sms("mobile-code", mobile_number, {"code": _new_code(f"sms-code:{user_id}:{mobile_number}")})
    session[TEXTED_CODES] = [*session.get(TEXTED_CODES, [])[-(TEXTED_KEPT - 1):], str(sent.id)]


def check_sms_code(user_id: str, mobile_number: str, code: str) -> bool:
    return _take_code(f"sms-code:{user_id}:{mobile_number}", code)


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
