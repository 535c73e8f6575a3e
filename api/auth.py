"""Bearer JWT authentication for the v2 API (service keys) and the admin API (admin client)."""
from __future__ import annotations

import functools
import time
import uuid
from dataclasses import dataclass
from typing import Iterable

import jwt
from flask import g, request

from api.errors import AuthError
from config import get_settings
from models import crypto
from models.api_key import ApiKey
from models.cache import cached
from models.service import Service

CLOCK_TOLERANCE_SECONDS = 30
CLOCK_MESSAGE = "Error: Your system clock must be accurate to within 30 seconds"


@dataclass(frozen=True)
class Caller:
    service: Service
    api_key: ApiKey

    @property
    def key_type(self) -> str:
        return self.api_key.key_type


def _bearer_token() -> str:
    header = request.headers.get("Authorization")
    if not header:
        raise AuthError("Unauthorized: authentication token must be provided", status_code=401)
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("Unauthorized: authentication bearer scheme must be used", status_code=401)
    return token.strip()


def _issuer(token: str) -> str:
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise AuthError("Invalid token: signature") from None
    issuer = claims.get("iss")
    if not issuer:
        raise AuthError("Invalid token: iss field not provided")
    return str(issuer)


def _verify(token: str, secret: str) -> bool:
    """True when secret signed the token and its iat is within tolerance; False for another key."""
    try:
        claims = jwt.decode(
            token, secret, algorithms=["HS256"],
            options={"verify_iat": False, "verify_exp": False, "verify_nbf": False},
        )
    except jwt.InvalidAlgorithmError:
        raise AuthError("Invalid token: algorithm used is not HS256") from None
    except jwt.InvalidSignatureError:
        return False
    except jwt.PyJWTError:
        raise AuthError("Invalid token: signature") from None
    iat = claims.get("iat")
    if not isinstance(iat, (int, float)) or abs(time.time() - iat) > CLOCK_TOLERANCE_SECONDS:
        raise AuthError(CLOCK_MESSAGE)
    return True


@functools.lru_cache(maxsize=4096)
def _secret(encrypted: str) -> str:
    # Decrypting is the costliest step of auth and the ciphertext never changes for a key.
    return crypto.decrypt(encrypted)


def _matching_key(token: str, keys: Iterable[ApiKey]) -> ApiKey | None:
    for key in keys:
        if _verify(token, _secret(key.secret_encrypted)):
            return key
    return None


def authenticate_service() -> Caller:
    token = _bearer_token()
    issuer = _issuer(token)
    try:
        service_id = uuid.UUID(issuer)
    except ValueError:
        raise AuthError("Invalid token: service not found") from None
    service = cached(("service", service_id), lambda: Service.get_or_none(Service.id == service_id))
    if service is None or not service.active:
        raise AuthError("Invalid token: service not found")
    keys = cached(("api-keys", service_id), lambda: list(
        ApiKey.select().where(ApiKey.service == service_id).order_by(ApiKey.revoked_at.is_null(False))))
    key = _matching_key(token, keys)
    if key is None:
        raise AuthError("Invalid token: API key not found")
    if key.revoked_at is not None:
        raise AuthError("Invalid token: API key revoked")
    caller = Caller(service=service, api_key=key)
    g.caller = caller
    return caller


def authenticate_admin() -> None:
    token = _bearer_token()
    settings = get_settings()
    if _issuer(token) != settings.admin_client_id:
        raise AuthError("Invalid token: client not found")
    if not _verify(token, settings.admin_client_secret):
        raise AuthError("Invalid token: signature")


def create_token(issuer: str, secret: str) -> str:
    """A token as the official clients make them (used by the CLI and tests)."""
    return jwt.encode({"iss": issuer, "iat": int(time.time())}, secret, algorithm="HS256", headers={"typ": "JWT"})
