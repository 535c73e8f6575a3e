"""Callbacks to a service: where delivery statuses and received texts are posted, and every attempt.

The bearer token is stored encrypted (models.crypto) and never returned.
"""
from __future__ import annotations

from typing import Any

import peewee
from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.admin.services import find_service
from api.errors import NoResultFound
from pipeline.formatting import iso
from api.openapi import documented
from api.request_body import integer_argument, json_body
from api.schema import validate
from models import audit
from models.callback_attempt import CallbackAttempt
from models.crypto import encrypt
from models.db import database, utcnow
from models.service import Service, ServiceCallback

DEFAULT_ATTEMPTS_LIMIT = 50
# The attempts listing names its subject by what it is.
_SUBJECT = {"delivery-status": "notification_id", "inbound-sms": "received_text_id", "complaint": "notification_id",
            "returned-letter": "notification_id", "unsubscribe": "notification_id"}


def callback_json(callback: ServiceCallback) -> dict[str, Any]:
    return {"id": str(callback.id), "kind": callback.kind, "url": callback.url, "updated_at": iso(callback.updated_at)}


def attempt_json(attempt: CallbackAttempt) -> dict[str, Any]:
    return {
        "id": attempt.id,
        _SUBJECT[attempt.kind]: str(attempt.subject_id),
        "event": attempt.event,
        "url": attempt.url,
        "attempt": attempt.attempt,
        "status_code": attempt.status_code,
        "error": attempt.error,
        "duration_ms": attempt.duration_ms,
        "attempted_at": iso(attempt.attempted_at),
    }


def _service_and_kind(service_id: str, kind: str) -> Service:
    service = find_service(service_id)
    validate(admin_schemas.callback_path, {"kind": kind})
    return service


def _find(service: Service, kind: str) -> ServiceCallback:
    callback = ServiceCallback.get_or_none((ServiceCallback.service == service) & (ServiceCallback.kind == kind))
    if callback is None:
        raise NoResultFound()
    return callback


def set_callback(service_id: str, kind: str, data: Any) -> dict[str, Any]:
    """Create or replace the service's callback of this kind."""
    service = _service_and_kind(service_id, kind)
    validate(admin_schemas.put_callback, data)
    fields = {"url": data["url"], "bearer_token_encrypted": encrypt(data["bearer_token"]), "updated_at": utcnow()}
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
    return callback_json(callback)


def remove_callback(service_id: str, kind: str) -> None:
    service = _service_and_kind(service_id, kind)
    callback = _find(service, kind)
    with database.atomic():
        ServiceCallback.delete().where(ServiceCallback.id == callback.id).execute()
        audit.record(service.id, f"callback.{kind}.remove", before={"url": callback.url})


def list_attempts(service_id: str, kind: str, limit: Any) -> dict[str, Any]:
    service = _service_and_kind(service_id, kind)
    validate(admin_schemas.callback_attempts_query, {"limit": limit})
    attempts = (CallbackAttempt.select()
                .where((CallbackAttempt.service == service) & (CallbackAttempt.kind == kind))
                .order_by(CallbackAttempt.attempted_at.desc(), CallbackAttempt.id.desc()).limit(limit))
    return {"callback_attempts": [attempt_json(attempt) for attempt in attempts]}


_RULE = "/services/<service_id>/callbacks/<kind>"
_PATH = admin_schemas.callback_path["properties"]


@admin_blueprint.put(_RULE)
@documented("Set where this kind of callback is posted, and the bearer token sent with it.",
            {200: responses.callback}, body=admin_schemas.put_callback, path=_PATH)
def put_callback(service_id: str, kind: str) -> Response:
    return jsonify(set_callback(service_id, kind, json_body()))


@admin_blueprint.get(_RULE)
@documented("The callback of this kind (never its token).", {200: responses.callback}, path=_PATH)
def get_callback(service_id: str, kind: str) -> Response:
    return jsonify(callback_json(_find(_service_and_kind(service_id, kind), kind)))


@admin_blueprint.delete(_RULE)
@documented("Stop posting this kind of callback.", {204: None}, path=_PATH)
def delete_callback(service_id: str, kind: str) -> tuple[str, int]:
    remove_callback(service_id, kind)
    return "", 204


@admin_blueprint.get(_RULE + "/attempts")
@documented("The latest attempts to post this kind of callback, newest first.", {200: responses.callback_attempts},
            query=admin_schemas.callback_attempts_query, path=_PATH)
def get_callback_attempts(service_id: str, kind: str) -> Response:
    return jsonify(list_attempts(service_id, kind, integer_argument("limit", DEFAULT_ATTEMPTS_LIMIT)))
