"""Callbacks to a service: where delivery statuses and received texts are posted, and every attempt
(the rules are core.callbacks). The bearer token is never returned."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import integer_argument, json_body
from api.schema import validate
from core.callbacks import find_callback, list_attempts, remove_callback, set_callback
from core.services import find_service
from models.callback_attempt import CallbackAttempt
from models.service import ServiceCallback
from pipeline.domain.formatting import iso

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


_RULE = "/services/<service_id>/callbacks/<kind>"
_PATH = admin_schemas.callback_path["properties"]


@admin_blueprint.put(_RULE)
@documented("Set where this kind of callback is posted, and the bearer token sent with it.",
            {200: responses.callback}, body=admin_schemas.put_callback, path=_PATH)
def put_callback(service_id: str, kind: str) -> Response:
    find_service(service_id)
    validate(admin_schemas.callback_path, {"kind": kind})
    data = validate(admin_schemas.put_callback, json_body())
    return jsonify(callback_json(set_callback(service_id, kind, url=data["url"], bearer_token=data["bearer_token"])))


@admin_blueprint.get(_RULE)
@documented("The callback of this kind (never its token).", {200: responses.callback}, path=_PATH)
def get_callback(service_id: str, kind: str) -> Response:
    return jsonify(callback_json(find_callback(service_id, kind)))


@admin_blueprint.delete(_RULE)
@documented("Stop posting this kind of callback.", {204: None}, path=_PATH)
def delete_callback(service_id: str, kind: str) -> tuple[str, int]:
    remove_callback(service_id, kind)
    return "", 204


@admin_blueprint.get(_RULE + "/attempts")
@documented("The latest attempts to post this kind of callback, newest first.", {200: responses.callback_attempts},
            query=admin_schemas.callback_attempts_query, path=_PATH)
def get_callback_attempts(service_id: str, kind: str) -> Response:
    limit = integer_argument("limit", DEFAULT_ATTEMPTS_LIMIT)
    find_service(service_id)
    validate(admin_schemas.callback_path, {"kind": kind})
    validate(admin_schemas.callback_attempts_query, {"limit": limit})
    return jsonify({"callback_attempts": [attempt_json(attempt) for attempt in list_attempts(service_id, kind, limit)]})
