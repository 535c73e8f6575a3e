"""Who sends a message: an API key, or a console user (a one-off send, a reply, a job's rows)."""
from __future__ import annotations

import uuid
from dataclasses import dataclass

from models.service import Service

# Console sends are live sends: trial mode, the guest list and the limits apply as to a live key.
CONSOLE_KEY_TYPE = "live"


@dataclass(frozen=True)
class Sender:
    service: Service
    key_type: str
    api_key_id: uuid.UUID | None = None
    created_by_user_id: uuid.UUID | None = None

    @classmethod
    def console_user(cls, service: Service, user_id: uuid.UUID) -> Sender:
        return cls(service, CONSOLE_KEY_TYPE, created_by_user_id=user_id)
