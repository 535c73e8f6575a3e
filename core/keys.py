"""API keys of a service: create one (the only time its secret exists outside a hash), revoke one,
rotate one (a new key, the old one working on for an overlap), with an optional expiry date."""
from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

from core.ids import checked_uuid
from core.services import find_service
from models import audit
from models.api_key import EXPIRY_WARNING, ApiKey, create_api_key, revoke_api_key
from models.db import database, utcnow
from pipeline.domain.errors import BadRequestError, NoResultFound, ValidationError

EXPIRY_IN_PAST = "expires_at must be in the future"
NOT_IN_USE = "This API key has been revoked or has expired"
# Notify's rotation has no overlap; ours is bounded so an old key cannot be kept alive indefinitely
# by "rotating" it.
MAX_OVERLAP = datetime.timedelta(days=30)
OVERLAP_OUT_OF_RANGE = f"overlap_seconds must be from 0 to {int(MAX_OVERLAP.total_seconds())}"


def end_of_day(day: datetime.date, zone: str) -> datetime.datetime:
    """The moment (naive UTC) a key "valid until" this day stops working: the next midnight in zone."""
    midnight = datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time(), ZoneInfo(zone))
    return midnight.astimezone(datetime.UTC).replace(tzinfo=None)


def _checked_expiry(expires_at: datetime.datetime | None) -> datetime.datetime | None:
    """As stored (naive UTC); an aware value is converted, a naive one is taken as UTC."""
    if expires_at is None:
        return None
    if expires_at.tzinfo is not None:
        expires_at = expires_at.astimezone(datetime.UTC).replace(tzinfo=None)
    if expires_at <= utcnow():
        raise ValidationError(EXPIRY_IN_PAST)
    return expires_at


def create_key(service_id: str, *, name: str, key_type: str,
               expires_at: datetime.datetime | None = None) -> tuple[ApiKey, str]:
    """A new key, made by the current actor: (the key, its secret, shown this once). After
    expires_at (UTC when naive) the key is refused as a revoked one is."""
    service = find_service(service_id)
    expiry = _checked_expiry(expires_at)
    with database.atomic():
        key, secret = create_api_key(service, name=name, key_type=key_type, created_by=audit.current_actor().name,
                                     expires_at=expiry)
        _record_creation(key)
    return key, secret


def _record_creation(key: ApiKey) -> None:
    after: dict[str, object] = {"name": key.name, "key_type": key.key_type}
    if key.expires_at is not None:
        after["expires_at"] = key.expires_at
    audit.record(key.service_id, "api_key.create", subject_id=key.id, after=after)


def in_use(key: ApiKey, now: datetime.datetime | None = None) -> bool:
    return key.revoked_at is None and not key.expired(now or utcnow())


def rotate_key(service_id: str, key_id: str, *, overlap: datetime.timedelta,
               expires_at: datetime.datetime | None = None) -> tuple[ApiKey, ApiKey, str]:
    """A new key of the same name and type replacing this one, which keeps working for `overlap`
    (never longer than it would have): (the old key, the new key, its secret, shown this once).
    The old key's managers are not warned of the expiry they chose here."""
    if not datetime.timedelta(0) <= overlap <= MAX_OVERLAP:
        raise ValidationError(OVERLAP_OUT_OF_RANGE)
    old = find_key(service_id, key_id)
    now = utcnow()
    if not in_use(old, now):
        raise BadRequestError(NOT_IN_USE)
    expiry = _checked_expiry(expires_at)
    ends = now + overlap if old.expires_at is None else min(old.expires_at, now + overlap)
    with database.atomic():
        before = old.expires_at
        ApiKey.update(expires_at=ends, expiry_warned_at=now).where(ApiKey.id == old.id).execute()
        new, secret = create_api_key(old.service, name=old.name, key_type=old.key_type,
                                     created_by=audit.current_actor().name, expires_at=expiry)
        audit.record(old.service_id, "api_key.rotate", subject_id=old.id,
                     before={"name": old.name, "expires_at": before},
                     after={"name": old.name, "expires_at": ends, "replaced_by": str(new.id)})
        _record_creation(new)
    return ApiKey.get_by_id(old.id), new, secret


def expiring_keys(service_id: str, now: datetime.datetime | None = None) -> list[ApiKey]:
    """The service's keys in use that expire within EXPIRY_WARNING, soonest first: the console's warning."""
    service = find_service(service_id)
    moment = now or utcnow()
    return list(ApiKey.select().where(
        (ApiKey.service == service) & ApiKey.revoked_at.is_null()
        & (ApiKey.expires_at > moment) & (ApiKey.expires_at <= moment + EXPIRY_WARNING)
    ).order_by(ApiKey.expires_at))


def list_keys(service_id: str) -> list[ApiKey]:
    service = find_service(service_id)
    return list(ApiKey.select().where(ApiKey.service == service).order_by(ApiKey.created_at, ApiKey.name))


def find_key(service_id: str, key_id: str) -> ApiKey:
    """A key of this service: 400 for a malformed id, 404 for an unknown one or another's."""
    service = find_service(service_id)
    key = ApiKey.get_or_none((ApiKey.id == checked_uuid("key_id", key_id)) & (ApiKey.service == service))
    if key is None:
        raise NoResultFound()
    return key


def revoke_key(service_id: str, key_id: str) -> ApiKey:
    """Revoke a key of this service; revoking again keeps the first revocation time."""
    key = find_key(service_id, key_id)
    if key.revoked_at is None:
        with database.atomic():
            revoke_api_key(key)
            audit.record(key.service_id, "api_key.revoke", subject_id=key.id,
                         before={"name": key.name, "revoked_at": None},
                         after={"name": key.name, "revoked_at": key.revoked_at})
    return key
