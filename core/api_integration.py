"""The "API integration" read model of a service: the last messages its API keys sent (not the
console's one-off sends nor its bulk jobs) with their status and key, and the last attempts to post
its callbacks with the answers they got."""
from __future__ import annotations

import heapq
import uuid
from dataclasses import dataclass

from core.callbacks import CALLBACK_KINDS, list_attempts
from core.services import find_service
from models.api_key import KEY_TYPES, ApiKey
from models.callback_attempt import CallbackAttempt
from models.notification import Notification

_COLUMNS = (Notification.id, Notification.notification_type, Notification.to, Notification.reference,
            Notification.status, Notification.created_at, Notification.key_type, Notification.api_key_id)


@dataclass(frozen=True)
class ApiMessage:
    notification: Notification
    key_name: str  # "" when the key is gone


def latest_api_messages(service_id: str, limit: int) -> list[ApiMessage]:
    """The service's last `limit` notifications sent with an API key, newest first, every key type.
    One read per key type along the list's (service, key_type, created_at, id) index, merged here."""
    service = find_service(service_id)
    per_type = [list(Notification.select(*_COLUMNS).where(
        (Notification.service == service) & (Notification.key_type == key_type)
        & Notification.api_key_id.is_null(False))
        .order_by(Notification.created_at.desc(), Notification.id.desc()).limit(limit)) for key_type in KEY_TYPES]
    latest = list(heapq.merge(*per_type, key=lambda n: (n.created_at, str(n.id)), reverse=True))[:limit]
    key_ids = {n.api_key_id for n in latest}
    names: dict[uuid.UUID | None, str] = {k.id: k.name for k in ApiKey.select(ApiKey.id, ApiKey.name)
                                          .where(ApiKey.id.in_(list(key_ids)))} if key_ids else {}
    return [ApiMessage(n, names.get(n.api_key_id, "")) for n in latest]


def latest_callback_attempts(service_id: str, limit: int) -> dict[str, list[CallbackAttempt]]:
    """Per callback kind, its last `limit` attempts newest first (kept 7 days)."""
    return {kind: list_attempts(service_id, kind, limit) for kind in CALLBACK_KINDS}
