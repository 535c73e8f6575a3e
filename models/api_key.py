"""API keys: the secret is shown once at creation and stored encrypted."""
from __future__ import annotations

import uuid

import peewee

from models.db import BaseModel, utcnow, uuid_pk
from models.service import Service

KEY_TYPES = ("live", "team", "test")


class ApiKey(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="api_keys", on_delete="CASCADE")
    name = peewee.CharField()
    key_type = peewee.CharField()
    secret_encrypted = peewee.TextField()
    created_at = peewee.DateTimeField(default=utcnow)
    revoked_at = peewee.DateTimeField(null=True)


def create_api_key(service: Service, *, name: str, key_type: str) -> tuple[ApiKey, str]:
    """Create a key; returns it with the full key string, which is never shown again."""
    from models import crypto

    secret = str(uuid.uuid4())
    key = ApiKey.create(service=service, name=name, key_type=key_type, secret_encrypted=crypto.encrypt(secret))
    return key, f"{name}-{service.id}-{secret}"


def revoke_api_key(key: ApiKey) -> None:
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        key.save()
