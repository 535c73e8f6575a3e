"""Going live: the admin API's routes to the rules in core.go_live."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.admin.on_behalf import acting
from api.admin.organisation_schemas import on_behalf_query, request_go_live as request_answers
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from core.go_live import (
    GoLiveStatus,
    approve_go_live,
    check_organisation_step,
    go_live_status,
    reject_go_live,
    request_go_live,
)
from core.services import find_service
from models.go_live import GoLiveRequest
from pipeline.domain.formatting import iso
from workers.platform_email import send_platform_email


def request_json(row: GoLiveRequest | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"id": str(row.id), "status": row.status, "requested_by": row.requested_by_name,
            "requested_at": iso(row.requested_at), "decided_by": row.decided_by_name,
            "decided_at": iso(row.decided_at), "reason": row.reason, "expected_volumes": row.expected_volumes,
            "recipients": row.recipients, "awaits_organisation": row.awaits_organisation,
            "organisation_approved_by": row.organisation_approved_by_name,
            "organisation_approved_at": iso(row.organisation_approved_at)}


def status_json(status: GoLiveStatus) -> dict[str, Any]:
    return {"trial_mode": status.trial_mode, "checklist": status.checklist, "request": request_json(status.request)}


@admin_blueprint.get("/services/<service_id>/go-live")
@documented("Whether the service is live, its go-live checklist and its latest request.",
            {200: responses.go_live_status},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_go_live(service_id: str) -> Response:
    return jsonify(status_json(go_live_status(service_id)))


@admin_blueprint.post("/services/<service_id>/go-live/request")
@documented("Ask to go live (the checklist must be complete), with the team's answers: expected messages per "
            "channel and who receives them (required when the service's organisation has an admin, who "
            "approves first).", {201: responses.go_live_request},
            body=request_answers, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_go_live_request(service_id: str) -> tuple[Response, int]:
    find_service(service_id)
    answers = validate(request_answers, json_body())
    return jsonify(request_json(request_go_live(service_id, send_email=send_platform_email, **answers))), 201


@admin_blueprint.post("/services/<service_id>/go-live/approve")
@documented("Take the service out of trial mode and tell its team.", {200: responses.go_live_status},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_go_live_approve(service_id: str) -> Response:
    return jsonify(status_json(approve_go_live(service_id, send_email=send_platform_email)))


@admin_blueprint.post("/services/<service_id>/go-live/reject")
@documented("Turn down the waiting request, with the reason the team is told. On behalf of an admin of "
            "the service's organisation: only while the request waits for the organisation's approval.",
            {200: responses.go_live_status}, body=admin_schemas.reject_go_live,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]}, query=on_behalf_query)
def post_go_live_reject(service_id: str) -> Response:
    with acting() as user:
        service = find_service(service_id)
        check_organisation_step(user, service)
        reason = validate(admin_schemas.reject_go_live, json_body())["reason"]
        return jsonify(status_json(reject_go_live(service_id, reason, send_email=send_platform_email)))
