"""Callbacks to a service: where delivery statuses and received texts are posted, and every attempt.

The bearer token is stored encrypted (models.crypto) and never read back out here.
"""
from __future__ import annotations

import peewee

from core.services import find_service
from models import audit
from models.callback_attempt import CallbackAttempt
from models.crypto import encrypt
from models.db import database, utcnow
from models.service import Service, ServiceCallback
from pipeline.domain.errors import NoResultFound, Refusal, ValidationError
from pipeline.infrastructure import outbound
from pipeline.stages.callbacks import KINDS

# The kinds the callback stage posts, in the order the admin API lists them.
CALLBACK_KINDS = list(KINDS)
MAX_URL_LENGTH = 255  # the column's width


def callback_url_problem(value: str, *, look_up: bool = True) -> Refusal | None:
    """Why a callback URL is refused, or None (pipeline/infrastructure/outbound.py: https to a public address; loopback,
    by http too, only with CALLBACKS_ALLOW_HTTP_LOOPBACK on). `look_up`: resolve a name and check its
    addresses too (the request's shape is checked without, the rule with)."""
    return outbound.url_problem(value, allow_loopback=outbound.loopback_allowed(),
                                resolver=outbound.system_resolver if look_up else None)


def _service_and_kind(service_id: str, kind: str) -> Service:
    service = find_service(service_id)
    if kind not in CALLBACK_KINDS:
        raise ValidationError(f"kind {kind} is not one of [{', '.join(CALLBACK_KINDS)}]")
    return service


def _find(service: Service, kind: str) -> ServiceCallback:
    callback = ServiceCallback.get_or_none((ServiceCallback.service == service) & (ServiceCallback.kind == kind))
    if callback is None:
        raise NoResultFound()
    return callback


def find_callback(service_id: str, kind: str) -> ServiceCallback:
    """The service's callback of this kind: 400 for a malformed id or unknown kind, 404 when unset."""
    return _find(_service_and_kind(service_id, kind), kind)


def set_callback(service_id: str, kind: str, *, url: str, bearer_token: str) -> ServiceCallback:
    """Create or replace the service's callback of this kind."""
    service = _service_and_kind(service_id, kind)
    problem = callback_url_problem(url)
    problems: list[str] = [problem.about("url")] if problem else []
    if len(url) > MAX_URL_LENGTH:
        problems.append(f"url {url} is too long")
    if problems:
        raise ValidationError(*problems)
    fields = {"url": url, "bearer_token_encrypted": encrypt(bearer_token), "updated_at": utcnow()}
    with database.atomic():
        existing = ServiceCallback.get_or_none((ServiceCallback.service == service) & (ServiceCallback.kind == kind))
        try:
            with database.atomic():
                callback = ServiceCallback.create(service=service, kind=kind, **fields)
        except peewee.IntegrityError:  # the unique (service, kind): there is one already, replace it
            callback = _find(service, kind)
            ServiceCallback.update(fields).where(ServiceCallback.id == callback.id).execute()
            callback = _find(service, kind)
        # The token is a secret: the history says only that one was set.
        audit.record(service.id, f"callback.{kind}.set",
                     before={"url": existing.url} if existing else None,
                     after={"url": callback.url, "bearer_token": "(changed)"})
    return callback


def remove_callback(service_id: str, kind: str) -> None:
    callback = find_callback(service_id, kind)
    with database.atomic():
        ServiceCallback.delete().where(ServiceCallback.id == callback.id).execute()
        audit.record(callback.service_id, f"callback.{kind}.remove", before={"url": callback.url})


def list_attempts(service_id: str, kind: str, limit: int) -> list[CallbackAttempt]:
    """The latest attempts to post this kind of callback, newest first."""
    service = _service_and_kind(service_id, kind)
    return list(CallbackAttempt.select()
                .where((CallbackAttempt.service == service) & (CallbackAttempt.kind == kind))
                .order_by(CallbackAttempt.attempted_at.desc(), CallbackAttempt.id.desc()).limit(limit))
