"""Bearer JWT authentication for the v2 API (service keys) and the admin API (admin client)."""
from __future__ import annotations

import functools
import math
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass

import jwt
from flask import g, request

from api.errors import AuthError
from config import get_settings
from core.limits import CountedAhead, observe_settings
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
    # A live send's count against today's limit, made with the settings generation's read: the send
    # route hands it to the send, and the end of the request gives it back if no send took it.
    counted_ahead: CountedAhead | None = None

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


# Tokens already verified, by their exact text: (service id, key id, iat, key type). The clients
# mint one token per second at most, so busy callers repeat them; a repeat skips the two JWT
# decodes but is still checked against the clock and the key's revocation.
_verified: OrderedDict[str, tuple[uuid.UUID, uuid.UUID, float, str]] = OrderedDict()
_VERIFIED_MAX = 10_000


_verified_lock = threading.Lock()


def _remember(token: str, service_id: uuid.UUID, key: ApiKey, iat: float) -> None:
    with _verified_lock:
        _verified[token] = (service_id, key.id, iat, key.key_type)
        if len(_verified) > _VERIFIED_MAX:
            _verified.popitem(last=False)


def _load(service_id: uuid.UUID) -> tuple[Service, list[ApiKey]]:
    service = cached(("service", service_id), lambda: Service.get_or_none(Service.id == service_id))
    if service is None or not service.active:
        raise AuthError("Invalid token: service not found")
    keys = cached(("api-keys", service_id), lambda: list(
        ApiKey.select().where(ApiKey.service == service_id).order_by(ApiKey.revoked_at.is_null(False))))
    return service, keys


def _authenticate(token: str) -> tuple[Service, ApiKey]:
    known = _verified.get(token)
    if known is not None:
        service_id, key_id, iat, _ = known
        _check_clock(iat)
        service, keys = _load(service_id)
        key = next((k for k in keys if k.id == key_id), None)
        if key is not None:
            return service, key
    try:
        service_id = uuid.UUID(_issuer(token))
    except ValueError:
        raise AuthError("Invalid token: service not found") from None
    service, keys = _load(service_id)
    for key in keys:
        signed_at = _verify(token, _secret(key.secret_encrypted))
        if signed_at is not None:
            _remember(token, service_id, key, signed_at)
            return service, key
    raise AuthError("Invalid token: API key not found")


SEND_ROUTES = {"/v2/notifications/sms": "sms", "/v2/notifications/email": "email"}


def _live_send(token: str) -> tuple[uuid.UUID, str] | None:
    """For a send by a token already verified for a live or team key: its service and channel, so
    that it is counted in the round trip that reads the settings generation instead of one of its
    own. Nothing for test keys (they have no daily limit) or tokens not seen yet."""
    channel = SEND_ROUTES.get(request.path) if request.method == "POST" else None
    known = _verified.get(token) if channel else None
    if channel is None or known is None or known[3] == "test":
        return None
    return known[0], channel


def authenticate_service() -> Caller:
    token = _bearer_token()
    counted = observe_settings(_live_send(token))
    try:
        service, key = _authenticate(token)
        # An expired key is refused as a revoked one: Notify's keys are revoked by setting their expiry.
        # Checked on every request, a token remembered in _verified included.
        if key.revoked_at is not None or key.expired(utcnow()):
            raise AuthError("Invalid token: API key revoked")
        record_key_use(key.id)
    except BaseException:
        if counted is not None:
            counted.give_back()  # no Caller holds it: no send will take it
        raise
    caller = Caller(service=service, api_key=key, counted_ahead=counted)
    g.caller = caller
    logs.bind(service_id=service.id)
    return caller


def authenticate_admin() -> None:
    token = _bearer_token()
    settings = get_settings()
    if _issuer(token) != settings.admin_client_id:
        raise AuthError("Invalid token: client not found")
    if _verify(token, settings.admin_client_secret) is None:
        raise AuthError("Invalid token: signature")
