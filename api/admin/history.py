"""A service's history: every change made through the admin API, the CLI and the console."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

from api.admin import admin_blueprint, admin_schemas
from api.admin.services import find_service
from api.formatting import iso
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
def get_history(service_id: str) -> Response:
    raw = request.args.get("limit")
    # A non-number is passed on as text, for the schema's "limit x is not of type integer".
    limit = DEFAULT_HISTORY_LIMIT if raw is None else int(raw) if raw.strip().lstrip("-").isdigit() else raw
    return jsonify(service_history(service_id, limit))
