"""`Idempotency-Key`: a retried POST gets the first answer instead of sending again, across every web
process (the answers are kept in Redis)."""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from pipeline.domain.errors import ApiError, InProgress
from pipeline.infrastructure.redis_state import client, namespaced

IDEMPOTENCY_TTL_SECONDS = 24 * 3600


class Idempotency:
    """One Idempotency-Key of a service: claimed by the first request, then holding its answer."""

    def __init__(self, service_id: object, header: str | None) -> None:
        self.key = namespaced("idempotency", service_id, header) if header else None

    def replay(self) -> tuple[int, Any] | None:
        """The stored response, or None after claiming the key for this request."""
        if self.key is None:
            return None
        for _ in range(50):
            if client().set(self.key, "pending", nx=True, ex=IDEMPOTENCY_TTL_SECONDS):
                return None
            stored = client().get(self.key)
            if stored and stored != b"pending":
                saved = json.loads(stored)
                return saved["status"], saved["body"]
            time.sleep(0.1)  # the first request is still being answered
        # Never send twice: a caller retrying while the first request hangs is told to wait.
        raise InProgress("A request with this Idempotency-Key is still being processed")

    def store(self, status: int, body: Any) -> None:
        if self.key is not None:
            client().set(self.key, json.dumps({"status": status, "body": body}), ex=IDEMPOTENCY_TTL_SECONDS)

    def forget(self) -> None:
        """A refused request is not remembered: fixing the request and retrying must work."""
        if self.key is not None:
            client().delete(self.key)


def answer_once(service_id: object, header: str | None, make: Callable[[], dict]) -> tuple[dict, int]:
    """201 and make()'s body, or the first answer again for a repeated Idempotency-Key (header)."""
    idempotency = Idempotency(service_id, header)
    replay = idempotency.replay()
    if replay is not None:
        status, saved = replay
        return saved, status
    try:
        body = make()
    except ApiError:
        idempotency.forget()
        raise
    idempotency.store(201, body)
    return body, 201
