"""The warning that an API key expires soon: which keys are due one, claiming a key's one warning,
and who is told (the members of its service who manage its keys or its settings).

The claim is an UPDATE that only the first run wins, made in the transaction that records the emails,
so a key's managers are told once however often the periodic job runs or is redelivered.
"""
from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass

from config import get_settings
from models import cache
from models.api_key import EXPIRY_WARNING, ApiKey
from models.platform import current_language
from models.service import Service
from models.user import ServiceUser, User
from pipeline.domain.wall_clock import on_the_clock

TEMPLATE = "api-key-expiring"
MANAGING = ("manage_api_keys", "manage_service")


@dataclass(frozen=True)
class ExpiryWarning:
    to: list[str]
    personalisation: dict[str, str]


def keys_due(now: datetime.datetime) -> list[uuid.UUID]:
    """Keys in use that expire within EXPIRY_WARNING and have not been warned of."""
    return [row.id for row in ApiKey.select(ApiKey.id).where(
        ApiKey.revoked_at.is_null() & ApiKey.expiry_warned_at.is_null()
        & (ApiKey.expires_at > now) & (ApiKey.expires_at <= now + EXPIRY_WARNING))]


def _expiry_of(key: ApiKey) -> datetime.datetime:
    if key.expires_at is None:  # the claim's condition: a claimed key has one
        raise ValueError(f"key {key.id} has no expiry")
    return key.expires_at


def claim(key_id: uuid.UUID, now: datetime.datetime) -> ExpiryWarning | None:
    """Mark the key warned and say whom to tell what; None when another run claimed it first (or it
    was revoked or given another expiry meanwhile). Call inside the transaction that sends."""
    with cache.bookkeeping():  # the warning changes nothing the API checks: cached keys stay valid
        claimed = ApiKey.update(expiry_warned_at=now).where(
            (ApiKey.id == key_id) & ApiKey.expiry_warned_at.is_null() & ApiKey.revoked_at.is_null()
            & (ApiKey.expires_at > now) & (ApiKey.expires_at <= now + EXPIRY_WARNING)).execute()
    if claimed != 1:
        return None
    key = ApiKey.get_by_id(key_id)
    service = Service.get_by_id(key.service_id)
    members = (ServiceUser.select(ServiceUser.permissions, User.email_address).join(User)
               .where(ServiceUser.service == service.id).order_by(User.email_address))
    to = [m.user.email_address for m in members if set(m.permissions or []) & set(MANAGING)]
    return ExpiryWarning(to=to, personalisation={
        "service_name": service.name, "key_name": key.name,
        # The service's clock, as its console shows the expiry.
        "expires": on_the_clock(_expiry_of(key), service.time_zone, current_language()),
        "url": f"{get_settings().admin_url}/services/{service.id}/api-keys",
    })
