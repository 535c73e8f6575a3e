"""A service's history: every change made through the admin API, the CLI and the console."""
from __future__ import annotations

from core.services import find_service
from models.audit import AuditEvent, history

DEFAULT_HISTORY_LIMIT = 100


def service_history(service_id: str, limit: int = DEFAULT_HISTORY_LIMIT) -> list[AuditEvent]:
    """The service's changes, newest first."""
    return list(history(find_service(service_id).id, limit=limit))
