"""SMS gateways: list them with their rotation state, add one, change its settings, read its history
(the rules are core.sms_gateways).

    GET   /admin/sms-gateways
    POST  /admin/sms-gateways                 {"name", "type", "url", "token", "account_sid", "messaging_service_sid",
                                               "priority", "supports_international", "active",
                                               "max_per_second", "max_in_flight"}
    PATCH /admin/sms-gateways/<id>            the same settings but the name
    GET   /admin/sms-gateways/<id>/history    every change, newest first
`type` is json (the default), spryng, cm or twilio; a real provider's url defaults to its API's
address. The token (the JSON gateway's or Spryng's bearer token, CM's product token, Twilio's
auth token) is stored encrypted and never returned. A configured gateway's type, URL and
credentials follow its configuration (SMS_GATEWAYS), so they are not changed here. `webhooks` are the
addresses to give the provider (docs/providers-sms.md). `max_per_second` and `max_in_flight` are the
gateway's pace, kept by every worker process together (null: its type's default, which the answer shows).
"""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import json_body
from api.schema import FormatProblem, format_checker, uuid_property, validate
from core.sms_gateways import GatewayState, add_gateway, change_gateway, find_gateway, gateway_history, list_gateways
from pipeline.domain.formatting import iso
from pipeline.infrastructure.providers.sms import gateways, types


@format_checker.checks("gateway-url", raises=FormatProblem)
def _is_gateway_url(value: object) -> bool:
    problem = gateways.url_problem(value, look_up=False) if isinstance(value, str) else None
    if problem:
        raise FormatProblem(problem)
    return True


_settings_properties = {
    "type": {"enum": list(types.TYPES)},
    "url": {"type": "string", "format": "gateway-url", "maxLength": 2000},
    "token": {"type": ["string", "null"], "maxLength": 2000},
    "account_sid": {"type": ["string", "null"], "pattern": "^AC[0-9a-fA-F]{32}$"},
    "messaging_service_sid": {"type": ["string", "null"], "pattern": "^MG[0-9a-fA-F]{32}$"},
    "priority": {"type": "integer", "minimum": 0, "maximum": 100},
    "supports_international": {"type": "boolean"},
    "active": {"type": "boolean"},
    **{field: {"type": ["integer", "null"], "minimum": 1, "maximum": most} for field, most in gateways.PACE.items()},
}
create_gateway = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": {"type": "string", "pattern": gateways.NAME_PATTERN}, **_settings_properties},
    "additionalProperties": False,
    # A JSON gateway has no address of its own; a real provider's defaults to its API's.
    "if": {"not": {"required": ["type"], "properties": {"type": {"not": {"const": types.JSON}}}}},
    "then": {"required": ["url"]},
}
update_gateway = {"type": "object", "properties": _settings_properties, "additionalProperties": False}
gateway_path = {"type": "object", "properties": {"gateway_id": uuid_property()}}
_datetime = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"}
gateway_response = {
    "type": "object",
    "required": ["id", "name", "type", "url", "account_sid", "messaging_service_sid", "priority",
                 "supports_international", "active", "max_per_second", "max_in_flight", "from_configuration",
                 "in_rotation", "slow_receipts", "webhooks", "problem", "created_at", "updated_at"],
    "properties": {
        "id": uuid_property(), "name": {"type": "string"}, "type": {"enum": list(types.TYPES)},
        "url": {"type": "string"}, "account_sid": {"type": ["string", "null"]},
        "messaging_service_sid": {"type": ["string", "null"]}, "priority": {"type": "integer"},
        "supports_international": {"type": "boolean"}, "active": {"type": "boolean"},
        "max_per_second": {"type": "integer"}, "max_in_flight": {"type": "integer"},
        "from_configuration": {"type": "boolean"}, "in_rotation": {"type": "boolean"},
        "slow_receipts": {"type": "boolean"},
        # What the service refuses about a stored gateway's settings (null: nothing); one in use so
        # refused stops the workers at start-up and fails /_status until it is put right or turned off.
        "problem": {"type": ["string", "null"]},
        "webhooks": {"type": "object", "required": ["delivery_reports", "received_texts"],
                     "properties": {"delivery_reports": {"type": "string"}, "received_texts": {"type": "string"}}},
        "created_at": _datetime,
        "updated_at": {"anyOf": [_datetime, {"type": "null"}]},
    },
    "additionalProperties": False,
}
gateways_response = {"type": "object", "required": ["sms_gateways"],
                     "properties": {"sms_gateways": {"type": "array", "items": gateway_response}}}
gateway_history_response = {"type": "object", "required": ["changes"], "properties": {"changes": {
    "type": "array", "items": {"type": "object", "required": ["changed_at", "changed_by", "changes"],
                               "properties": {"changed_at": _datetime, "changed_by": {"type": "string"},
                                              "changes": {"type": "object"}}}}}}


def gateway_json(state: GatewayState) -> dict[str, Any]:
    gateway = state.gateway
    return {
        "id": str(gateway.id), "name": gateway.name, "type": gateway.type, "url": gateway.url,
        "account_sid": gateway.account_sid, "messaging_service_sid": gateway.messaging_service_sid,
        "priority": gateway.priority,
        "supports_international": gateway.supports_international, "active": gateway.active,
        "max_per_second": state.limits.per_second, "max_in_flight": state.limits.in_flight,
        "from_configuration": gateway.from_configuration, "in_rotation": state.in_rotation,
        "slow_receipts": state.slow_receipts, "webhooks": state.webhooks, "problem": state.problem,
        "created_at": iso(gateway.created_at), "updated_at": iso(gateway.updated_at),
    }


@admin_blueprint.get("/sms-gateways")
@documented("The SMS gateways in use, with their rotation state.", {200: gateways_response})
def get_sms_gateways() -> Response:
    return jsonify({"sms_gateways": [gateway_json(state) for state in list_gateways()]})


@admin_blueprint.post("/sms-gateways")
@documented("Add an SMS gateway.", {201: gateway_response}, body=create_gateway)
def post_sms_gateway() -> tuple[Response, int]:
    return jsonify(gateway_json(add_gateway(**validate(create_gateway, json_body())))), 201


@admin_blueprint.patch("/sms-gateways/<gateway_id>")
@documented("Change a gateway's settings.", {200: gateway_response}, body=update_gateway,
            path=gateway_path["properties"])
def patch_sms_gateway(gateway_id: str) -> Response:
    find_gateway(gateway_id)
    return jsonify(gateway_json(change_gateway(gateway_id, **validate(update_gateway, json_body()))))


@admin_blueprint.get("/sms-gateways/<gateway_id>/history")
@documented("Every change to a gateway, newest first.", {200: gateway_history_response},
            path=gateway_path["properties"])
def get_sms_gateway_history(gateway_id: str) -> Response:
    return jsonify({"changes": [{"changed_at": iso(c.changed_at), "changed_by": c.changed_by, "changes": c.changes}
                                for c in gateway_history(gateway_id)]})
