"""API keys of a service: create one (the only time its secret exists outside a hash), revoke one."""
from __future__ import annotations

from core.ids import checked_uuid
from core.services import find_service
from models import audit
from models.api_key import ApiKey, create_api_key, revoke_api_key
from models.db import database
from pipeline.errors import NoResultFound


def create_key(service_id: str, *, name: str, key_type: str) -> tuple[ApiKey, str]:
    """A new key, made by the current actor: (the key, its secret, shown this once)."""
    service = find_service(service_id)
    with database.atomic():
        key, secret = create_api_key(service, name=name, key_type=key_type, created_by=audit.current_actor().name)
        audit.record(service.id, "api_key.create", subject_id=key.id,
                     after={"name": key.name, "key_type": key.key_type})
    return key, secret


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
