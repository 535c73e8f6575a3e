"""Who a service sends as: SMS senders, email reply-to addresses, letter contact blocks, and the
inbound numbers texts are received on (the rules are core.senders)."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from core.senders import (
    KINDS,
    add_setting,
    assign_inbound_number,
    find_setting,
    list_inbound_numbers,
    list_settings,
    update_setting,
)
from core.services import find_service
from models.db import BaseModel
from models.service import InboundNumber
from pipeline.domain.formatting import iso
from pipeline.domain.i18n import N_

_CREATE_SCHEMA = {"sms-senders": admin_schemas.create_sms_sender,
                  "reply-to-addresses": admin_schemas.create_reply_to_address,
                  "letter-contacts": admin_schemas.create_letter_contact}
_UPDATE_SCHEMA = {"sms-senders": admin_schemas.update_sms_sender,
                  "reply-to-addresses": admin_schemas.update_reply_to_address,
                  "letter-contacts": admin_schemas.update_letter_contact}


# Each kind's summaries written out: the reference page (/docs) finds their translations by these texts.
_SUMMARIES = {  # kind: (add, list, one, change)
    "sms-senders": (N_("Add one of the service's sms-senders."), N_("The service's sms-senders."),
                    N_("One of the service's sms-senders."),
                    N_("Change one of the service's sms-senders, or make it the default.")),
    "reply-to-addresses": (N_("Add one of the service's reply-to-addresses."),
                           N_("The service's reply-to-addresses."), N_("One of the service's reply-to-addresses."),
                           N_("Change one of the service's reply-to-addresses, or make it the default.")),
    "letter-contacts": (N_("Add one of the service's letter-contacts."), N_("The service's letter-contacts."),
                        N_("One of the service's letter-contacts."),
                        N_("Change one of the service's letter-contacts, or make it the default.")),
}


def setting_json(kind: str, row: BaseModel) -> dict[str, Any]:
    field = KINDS[kind].field
    return {"id": str(row.id), field: getattr(row, field), "is_default": row.is_default,
            "created_at": iso(row.created_at)}


def inbound_number_json(number: InboundNumber) -> dict[str, Any]:
    return {"id": str(number.id), "number": number.number,
            "service_id": str(number.service_id) if number.service_id else None,
            "active": number.active, "created_at": iso(number.created_at)}


def _routes(kind: str) -> None:
    # One pair of routes per kind; the endpoint names must differ for Flask.
    field = KINDS[kind].field

    def post(service_id: str) -> tuple[Response, int]:
        find_service(service_id)
        data = validate(_CREATE_SCHEMA[kind], json_body())
        row = add_setting(kind, service_id, value=data[field], is_default=data.get("is_default", False))
        return jsonify(setting_json(kind, row)), 201

    def get(service_id: str) -> Response:
        return jsonify({kind.replace("-", "_"): [setting_json(kind, row) for row in list_settings(kind, service_id)]})

    one, many = responses.settings[kind]
    path = admin_schemas.service_path["properties"]
    add_summary, list_summary, one_summary, change_summary = _SUMMARIES[kind]
    documented(add_summary, {201: one}, body=_CREATE_SCHEMA[kind], path=path)(post)
    documented(list_summary, {200: many}, path=path)(get)

    def get_one(service_id: str, setting_id: str) -> Response:
        return jsonify(setting_json(kind, find_setting(kind, service_id, setting_id)))

    def patch(service_id: str, setting_id: str) -> Response:
        find_setting(kind, service_id, setting_id)
        data = validate(_UPDATE_SCHEMA[kind], json_body())
        row = update_setting(kind, service_id, setting_id, value=data.get(field), is_default=data.get("is_default"))
        return jsonify(setting_json(kind, row))

    one_path = {**path, **admin_schemas.setting_path["properties"]}
    documented(one_summary, {200: one}, path=one_path)(get_one)
    documented(change_summary, {200: one},
               body=_UPDATE_SCHEMA[kind], path=one_path)(patch)
    rule = f"/services/<service_id>/{kind}"
    admin_blueprint.add_url_rule(rule, f"post_{kind}", post, methods=["POST"])
    admin_blueprint.add_url_rule(rule, f"get_{kind}", get, methods=["GET"])
    admin_blueprint.add_url_rule(rule + "/<setting_id>", f"get_one_{kind}", get_one, methods=["GET"])
    admin_blueprint.add_url_rule(rule + "/<setting_id>", f"patch_{kind}", patch, methods=["PATCH"])


for _kind in KINDS:
    _routes(_kind)


@admin_blueprint.post("/services/<service_id>/inbound-number")
@documented("Give the service a number texts are received on.", {201: responses.inbound_number},
            body=admin_schemas.assign_inbound_number,
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_inbound_number(service_id: str) -> tuple[Response, int]:
    find_service(service_id)
    data = validate(admin_schemas.assign_inbound_number, json_body())
    return jsonify(inbound_number_json(assign_inbound_number(service_id, data["number"]))), 201


@admin_blueprint.get("/services/<service_id>/inbound-number")
@documented("The service's inbound numbers.", {200: responses.inbound_numbers},
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_inbound_numbers(service_id: str) -> Response:
    return jsonify({"inbound_numbers": [inbound_number_json(row) for row in list_inbound_numbers(service_id)]})
