"""API keys: the secret is shown once at creation and stored encrypted."""
from __future__ import annotations

import datetime
import time
import uuid

import peewee

from models import cache
from models.db import BaseModel, utcnow, uuid_pk
from models.service import Service

KEY_TYPES = ("live", "team", "test")
# How long before a key expires its service's managers are warned, by email and in the console.
EXPIRY_WARNING = datetime.timedelta(days=14)


@cache.settings_table
class ApiKey(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="api_keys", on_delete="CASCADE")
    service_id: uuid.UUID  # the key's raw value: peewee's accessor, typed here for mypy
    name = peewee.CharField()
    key_type = peewee.CharField()
    secret_encrypted = peewee.TextField()
    created_at = peewee.DateTimeField(default=utcnow)
    revoked_at = peewee.DateTimeField(null=True)
    created_by = peewee.CharField(null=True)  # who made it, as the audit trail names them
    # Written at most once a minute per key and web process (record_key_use), never per request.
    last_used_at = peewee.DateTimeField(null=True)
    # After this moment (UTC) the key is refused; None: it never expires. A rotation sets it on the
    # key it replaces, so the old key keeps working for the chosen overlap.
    expires_at = peewee.DateTimeField(null=True)
    # When the service's managers were told the key expires soon: at most once per key.
    expiry_warned_at = peewee.DateTimeField(null=True)

    def expired(self, now: datetime.datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


def create_api_key(service: Service, *, name: str, key_type: str, created_by: str | None = None,
                   expires_at: datetime.datetime | None = None) -> tuple[ApiKey, str]:
    """Create a key; returns it with the full key string, which is never shown again."""
    from models import crypto

    secret = str(uuid.uuid4())
    key = ApiKey.create(service=service, name=name, key_type=key_type, secret_encrypted=crypto.encrypt(secret),
                        created_by=created_by, expires_at=expires_at)
    return key, f"{name}-{service.id}-{secret}"


def revoke_api_key(key: ApiKey) -> None:
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        key.save()


LAST_USED_RESOLUTION_SECONDS = 60
_last_written: dict[uuid.UUID, float] = {}


def record_key_use(key_id: uuid.UUID) -> None:
    """Note that a key was used, for the console's "last used". Called on every authenticated
    request, it writes at most once a LAST_USED_RESOLUTION_SECONDS per key and process, so the hot
    path pays a dictionary lookup; "last used" is therefore exact to the minute."""
    now = time.monotonic()
    if now - _last_written.get(key_id, -LAST_USED_RESOLUTION_SECONDS) < LAST_USED_RESOLUTION_SECONDS:
        return
    # Claimed before the write, so concurrent requests of one process do not all write.
    _last_written[key_id] = now
    with cache.bookkeeping():  # a key's last use is not a settings change: cached rows stay valid
        ApiKey.update(last_used_at=utcnow()).where(ApiKey.id == key_id).execute()
