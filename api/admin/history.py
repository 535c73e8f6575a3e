"""A service's history: every change made through the admin API, the CLI and the console."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import integer_argument
from api.schema import validate
from core.history import DEFAULT_HISTORY_LIMIT, service_history
from core.services import find_service
from models.audit import AuditEvent
from pipeline.domain.formatting import iso


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


@admin_blueprint.get("/services/<service_id>/history")
@documented("Every change made to the service, newest first.", {200: responses.history},
            query=admin_schemas.history_query,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_history(service_id: str) -> Response:
    limit = integer_argument("limit", DEFAULT_HISTORY_LIMIT)
    find_service(service_id)
    validate(admin_schemas.history_query, {"limit": limit})
    return jsonify({"events": [event_json(event) for event in service_history(service_id, limit)]})
