"""Bearer JWT authentication for the v2 API (service keys) and the admin API (admin client)."""
from __future__ import annotations

import base64
import functools
import hmac
import json
import math
import re
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass

import jwt
from flask import g, request

from api.errors import AuthError, Unauthenticated
from config import get_settings
from core.fresh_settings import observe_settings
from models import crypto
from models.api_key import ApiKey, record_key_use
from models.cache import cached
from models.db import utcnow
from models.service import Service
from observability import logs

CLOCK_TOLERANCE_SECONDS = 30
CLOCK_MESSAGE = "Error: Your system clock must be accurate to within 30 seconds"


@dataclass(frozen=True)
class Caller:
    service: Service
    api_key: ApiKey

    @property
    def key_type(self) -> str:
        return self.api_key.key_type


def bearer_token(header: str | None) -> str:
    if not header:
        raise Unauthenticated("Unauthorized: authentication token must be provided")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("Unauthorized: authentication bearer scheme must be used")
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


def _verify(token: str, secret: str) -> float | None:
    """The token's iat when secret signed it and its iat is within tolerance; None for another key."""
    try:
        claims = jwt.decode(
            token, secret, algorithms=["HS256"],
            options={"verify_iat": False, "verify_exp": False, "verify_nbf": False},
        )
    except jwt.InvalidAlgorithmError:
        raise AuthError("Invalid token: algorithm used is not HS256") from None
    except jwt.InvalidSignatureError:
        return None
    except jwt.PyJWTError:
        raise AuthError("Invalid token: signature") from None
    iat = _finite_iat(claims.get("iat"))
    _check_clock(iat)
    return iat


def _finite_iat(value: object) -> float:
    # NaN compares false with everything, so a NaN iat would pass any tolerance check forever;
    # an int too large for a float (10**400) cannot be compared with the clock at all.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AuthError(CLOCK_MESSAGE)
    try:
        iat = float(value)
    except OverflowError:
        raise AuthError(CLOCK_MESSAGE) from None
    if not math.isfinite(iat):
        raise AuthError(CLOCK_MESSAGE)
    return iat


def _check_clock(iat: float) -> None:
    if abs(time.time() - iat) > CLOCK_TOLERANCE_SECONDS:
        raise AuthError(CLOCK_MESSAGE)


@functools.lru_cache(maxsize=4096)
def _secret(encrypted: str) -> str:
    # Decrypting is the costliest step of auth and the ciphertext never changes for a key.
    return crypto.decrypt(encrypted)


@dataclass(frozen=True)
class _Signer:
    key_id: uuid.UUID
    secret: bytes
    key_type: str


@dataclass(frozen=True)
class _Signed:
    """A token checked with a remembered key's secret: whose it is and when it was issued."""
    service_id: uuid.UUID
    key_id: uuid.UUID
    iat: float
    key_type: str


# The keys this process verified a token of, by service. The official clients make a new token for
# every request, so a cache of tokens would never hit; instead a new token is checked against the
# secrets of its service's keys seen before (one HMAC, no pyjwt), before the settings generation is
# read, and a live send is counted in that round trip. The key is still looked up afterwards, through
# the settings-aware cache, so a revoked or deleted key is refused as before.
_signers: OrderedDict[uuid.UUID, tuple[_Signer, ...]] = OrderedDict()
_SIGNERS_MAX = 10_000
_signers_lock = threading.Lock()
_SEGMENTS = re.compile(r"([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)")
# Claims pyjwt's decode would check further (aud, sub, nbf, exp...) send a token down the full check.
_PLAIN_CLAIMS = frozenset({"iss", "iat", "jti"})


def _remember(service_id: uuid.UUID, key: ApiKey, secret: str) -> None:
    signer = _Signer(key.id, secret.encode(), key.key_type)
    with _signers_lock:
        known = tuple(s for s in _signers.get(service_id, ()) if s.key_id != key.id)
        _signers[service_id] = (signer, *known)
        _signers.move_to_end(service_id)
        if len(_signers) > _SIGNERS_MAX:
            _signers.popitem(last=False)


def _forget(service_id: uuid.UUID, key_id: uuid.UUID) -> None:
    with _signers_lock:
        _signers[service_id] = tuple(s for s in _signers.get(service_id, ()) if s.key_id != key_id)


def _segment(text: str) -> object:
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


@functools.lru_cache(maxsize=64)
def _header(text: str) -> object:
    # A client's header is the same on every token it makes ({"alg":"HS256","typ":"JWT"}); read once.
    # Only ever read: the cached dict is shared by every token with this header.
    return _segment(text)


def _signed_by_known_key(token: str) -> _Signed | None:
    """The token's service, key and iat when it is a plain HS256 token (the official clients' shape)
    signed by a key of its issuer this process has verified a token of before; None for any other,
    which the full check then decides with its own errors. Raises the clock's error as that would."""
    parts = _SEGMENTS.fullmatch(token)
    if parts is None:
        return None
    header_text, claims_text, signature = parts.groups()
    try:
        header, claims = _header(header_text), _segment(claims_text)
        if not (isinstance(header, dict) and isinstance(claims, dict)):
            return None
        service_id = uuid.UUID(claims["iss"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if (header.get("alg") != "HS256" or not header.keys() <= {"alg", "typ"} or not claims.keys() <= _PLAIN_CLAIMS
            or not isinstance(claims.get("jti", ""), str)):
        return None
    signed = f"{header_text}.{claims_text}".encode()
    for signer in _signers.get(service_id, ()):
        expected = base64.urlsafe_b64encode(hmac.digest(signer.secret, signed, "sha256")).rstrip(b"=")
        if hmac.compare_digest(expected, signature.encode()):
            iat = _finite_iat(claims.get("iat"))
            _check_clock(iat)
            return _Signed(service_id, signer.key_id, iat, signer.key_type)
    return None


def _load(service_id: uuid.UUID) -> tuple[Service, list[ApiKey]]:
    service = cached(("service", service_id), lambda: Service.get_or_none(Service.id == service_id))
    if service is None or not service.active:
        raise AuthError("Invalid token: service not found")
    keys = cached(("api-keys", service_id), lambda: list(
        ApiKey.select().where(ApiKey.service == service_id).order_by(ApiKey.revoked_at.is_null(False))))
    return service, keys


def _authenticate(token: str, signed: _Signed | None) -> tuple[Service, ApiKey]:
    if signed is not None:
        service, keys = _load(signed.service_id)
        key = next((k for k in keys if k.id == signed.key_id), None)
        if key is not None:
            return service, key
        _forget(signed.service_id, signed.key_id)
    try:
        service_id = uuid.UUID(_issuer(token))
    except ValueError:
        raise AuthError("Invalid token: service not found") from None
    service, keys = _load(service_id)
    for key in keys:
        secret = _secret(key.secret_encrypted)
        if _verify(token, secret) is not None:
            _remember(service_id, key, secret)
            return service, key
    raise AuthError("Invalid token: API key not found")


def service_caller(authorization: str | None) -> Caller:
    """The service and key whose token the Authorization header carries, or the AuthError saying why not."""
    token = bearer_token(authorization)
    signed = _signed_by_known_key(token)
    observe_settings()
    service, key = _authenticate(token, signed)
    # An expired key is refused as a revoked one: Notify's keys are revoked by setting their expiry.
    # Checked on every request, a token remembered in _verified included.
    if key.revoked_at is not None or key.expired(utcnow()):
        raise AuthError("Invalid token: API key revoked")
    record_key_use(key.id)
    logs.bind(service_id=service.id)
    return Caller(service=service, api_key=key)


def authenticate_service() -> Caller:
    caller = g.caller = service_caller(request.headers.get("Authorization"))
    return caller


def authenticate_admin() -> None:
    token = bearer_token(request.headers.get("Authorization"))
    settings = get_settings()
    if _issuer(token) != settings.admin_client_id:
        raise AuthError("Invalid token: client not found")
    if _verify(token, settings.admin_client_secret) is None:
        raise AuthError("Invalid token: signature")
