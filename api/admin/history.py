"""A service's history: every change made through the admin API, the CLI and the console."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.admin.services import find_service
from pipeline.formatting import iso
from api.openapi import documented
from api.request_body import integer_argument
from api.schema import validate
from models.audit import AuditEvent, history

DEFAULT_HISTORY_LIMIT = 100


def event_json(event: AuditEvent) -> dict[str, Any]:
    return {
        "id": str(event.id),
        "action": event.action,
        "subject_id": event.subject_id,
        "actor": {"kind": event.actor_kind, "id": event.actor_id, "name": event.actor_name},
        "before": event.before,
        "after": event.after,
        "created_at": iso(event.created_at),
    }


def service_history(service_id: str, limit: Any = DEFAULT_HISTORY_LIMIT) -> dict[str, Any]:
    """The service's changes, newest first."""
    service = find_service(service_id)
    validate(admin_schemas.history_query, {"limit": limit})
    return {"events": [event_json(event) for event in history(service.id, limit=limit)]}


@admin_blueprint.get("/services/<service_id>/history")
@documented("Every change made to the service, newest first.", {200: responses.history},
            query=admin_schemas.history_query, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_history(service_id: str) -> Response:
    return jsonify(service_history(service_id, integer_argument("limit", DEFAULT_HISTORY_LIMIT)))
