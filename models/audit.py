"""The audit trail: who changed what on a service, when, and the values before and after.

Every change goes through a business function of the rules floor (core/) that calls `record`
inside the change's own transaction, so a change and its record commit or roll back together and
no caller (admin API, CLI, console) can make one without the other. Who made it comes from the
caller's context (`acting_as`): the admin API sets its client, the CLI the operator, the console
the signed-in user. Values are what the caller may see again: never a key secret or a bearer token.
"""
from __future__ import annotations

import contextlib
import contextvars
import datetime
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import peewee

from models.db import BaseModel, JSONField, utcnow, uuid_pk

ACTOR_KINDS = ("user", "admin-api", "cli", "system")


@dataclass(frozen=True)
class Actor:
    kind: str  # one of ACTOR_KINDS
    id: str  # user id, admin client id, operator login, or a process name
    name: str  # what a person reading the history recognises: an email address, a client id

    @property
    def user_id(self) -> str | None:
        return self.id if self.kind == "user" else None


# A change made outside any declared context (a scheduled job, a test calling a function directly)
# is still recorded, as the system.
SYSTEM = Actor("system", "system", "system")

_actor: contextvars.ContextVar[Actor | None] = contextvars.ContextVar("audit_actor", default=None)


def current_actor() -> Actor:
    return _actor.get() or SYSTEM


def set_actor(actor: Actor) -> contextvars.Token:
    """Declare who acts for the rest of this context (a request); undo with reset_actor."""
    return _actor.set(actor)


def reset_actor(token: contextvars.Token) -> None:
    _actor.reset(token)


@contextlib.contextmanager
def acting_as(actor: Actor) -> Iterator[Actor]:
    token = _actor.set(actor)
    try:
        yield actor
    finally:
        _actor.reset(token)


class AuditEvent(BaseModel):
    id = uuid_pk()
    service_id = peewee.UUIDField()
    action = peewee.CharField()  # e.g. "service.update", "api_key.revoke"
    subject_id = peewee.CharField(null=True)  # the row changed, when it is not the service itself
    actor_kind = peewee.CharField()
    actor_id = peewee.CharField()
    actor_name = peewee.CharField()
    before = JSONField(null=True)
    after = JSONField(null=True)
    created_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "audit_event"
        indexes = ((("service_id", "created_at"), False),)


def plain(value: Any) -> Any:
    """JSON-able form of a recorded value (dates as ISO text, ids as strings)."""
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def record(service_id: uuid.UUID | str, action: str, *, before: dict[str, Any] | None = None,
           after: dict[str, Any] | None = None, subject_id: object = None) -> AuditEvent:
    """Record one change by the current actor. Call it inside the change's transaction."""
    actor = current_actor()
    return AuditEvent.create(
        service_id=uuid.UUID(str(service_id)), action=action,
        subject_id=None if subject_id is None else str(subject_id),
        actor_kind=actor.kind, actor_id=actor.id, actor_name=actor.name,
        before=plain(before), after=plain(after),
    )


def differences(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Only the fields whose values differ, as (before, after)."""
    changed = [k for k in after if before.get(k) != after[k]]
    return {k: before.get(k) for k in changed}, {k: after[k] for k in changed}


def history(service_id: uuid.UUID | str, *, limit: int) -> list[AuditEvent]:
    """A service's changes, newest first."""
    query = AuditEvent.select().where(AuditEvent.service_id == uuid.UUID(str(service_id)))
    return list(query.order_by(AuditEvent.created_at.desc(), AuditEvent.id.desc()).limit(limit))
