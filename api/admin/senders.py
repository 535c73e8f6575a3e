"""Who a service sends as: SMS senders, email reply-to addresses, letter contact blocks, and the
inbound numbers texts are received on."""
from __future__ import annotations

from typing import Any, Callable

from flask import Response, jsonify

from api.admin import admin_blueprint, admin_schemas
from api.admin import response_schemas as responses
from api.admin.services import find_service
from api.errors import BadRequestError, NoResultFound, ValidationError
from pipeline.formatting import iso
from api.openapi import documented
from api.request_body import json_body
from api.schema import validate
from models import audit
from models.db import BaseModel, database
from models.service import (
    InboundNumber,
    LetterContact,
    ReplyToAddress,
    SmsSender,
    add_service_setting,
    make_default_setting,
)


def _email(raw: str) -> str:
    from pipeline.recipients import InvalidRecipient, validate_email_address

    try:
        return validate_email_address(raw)
    except InvalidRecipient as problem:
        raise ValidationError(f"email_address {problem.message}") from None


def _unchanged(raw: str) -> str:
    return raw


# kind -> (model, value field, request schema, how the value is cleaned before storing)
KINDS: dict[str, tuple[type[BaseModel], str, dict[str, Any], Callable[[str], str]]] = {
    "sms-senders": (SmsSender, "sms_sender", admin_schemas.create_sms_sender, str.strip),
    "reply-to-addresses": (ReplyToAddress, "email_address", admin_schemas.create_reply_to_address, _email),
    "letter-contacts": (LetterContact, "contact_block", admin_schemas.create_letter_contact, _unchanged),
}
# How the audit trail names each kind's changes.
_AUDIT_NAME = {"sms-senders": "sms_sender", "reply-to-addresses": "reply_to_address",
               "letter-contacts": "letter_contact"}
_UPDATE_SCHEMA = {"sms-senders": admin_schemas.update_sms_sender,
                  "reply-to-addresses": admin_schemas.update_reply_to_address,
                  "letter-contacts": admin_schemas.update_letter_contact}


def setting_json(kind: str, row: BaseModel) -> dict[str, Any]:
    _model, field, _schema, _clean = KINDS[kind]
    return {"id": str(row.id), field: getattr(row, field), "is_default": row.is_default,
            "created_at": iso(row.created_at)}


def add_setting(kind: str, service_id: str, data: Any) -> dict[str, Any]:
    """Add one sender/reply-to/contact block of the given kind (a key of KINDS)."""
    model, field, schema, clean = KINDS[kind]
    service = find_service(service_id)
    validate(schema, data)
    with database.atomic():
        row = add_service_setting(model, service, is_default=data.get("is_default", False),
                                  **{field: clean(data[field])})
        audit.record(service.id, f"{_AUDIT_NAME[kind]}.add", subject_id=row.id,
                     after={field: getattr(row, field), "is_default": row.is_default})
    return setting_json(kind, row)


def find_setting(kind: str, service_id: str, setting_id: str) -> BaseModel:
    """One sender/reply-to/contact of this service: 400 for a malformed id, 404 for another's."""
    model = KINDS[kind][0]
    service = find_service(service_id)
    validate(admin_schemas.setting_path, {"setting_id": setting_id})
    row = model.get_or_none((model.id == setting_id) & (model.service == service))
    if row is None:
        raise NoResultFound()
    return row


def update_setting(kind: str, service_id: str, setting_id: str, data: Any) -> dict[str, Any]:
    """Change a sender/reply-to/contact's value, or make it the default (the default stays the
    default until another one is made the default: a service always has one)."""
    model, field, _schema, clean = KINDS[kind]
    row = find_setting(kind, service_id, setting_id)
    validate(_UPDATE_SCHEMA[kind], data)
    if data.get("is_default") is False and row.is_default:
        raise BadRequestError("This is the default: make another one the default instead")
    before = {field: getattr(row, field), "is_default": row.is_default}
    with database.atomic():
        if field in data:
            model.update({field: clean(data[field])}).where(model.id == row.id).execute()
        if data.get("is_default"):
            make_default_setting(model, row)
        row = model.get_by_id(row.id)
        old, new = audit.differences(before, {field: getattr(row, field), "is_default": row.is_default})
        if new:
            audit.record(row.service_id, f"{_AUDIT_NAME[kind]}.update", subject_id=row.id, before=old, after=new)
    return setting_json(kind, row)


def list_settings(kind: str, service_id: str) -> dict[str, Any]:
    model = KINDS[kind][0]
    service = find_service(service_id)
    rows = model.select().where(model.service == service).order_by(model.created_at, model.id)
    return {kind.replace("-", "_"): [setting_json(kind, row) for row in rows]}


def inbound_number_json(number: InboundNumber) -> dict[str, Any]:
    return {"id": str(number.id), "number": number.number,
            "service_id": str(number.service_id) if number.service_id else None,
            "active": number.active, "created_at": iso(number.created_at)}


def assign_inbound_number(service_id: str, data: Any) -> dict[str, Any]:
    """Give the service a number texts are received on: a new number is created, a free one is
    taken, one held by another service is refused."""
    service = find_service(service_id)
    validate(admin_schemas.assign_inbound_number, data)
    value = admin_schemas.strip_separators(data["number"])
    with InboundNumber._meta.database.atomic():
        number = InboundNumber.get_or_none(InboundNumber.number == value)
        if number is None:
            number = InboundNumber.create(number=value, service=service)
        elif number.service_id not in (None, service.id):
            raise BadRequestError(f"Inbound number {value} is already assigned to another service")
        else:
            number.service, number.active = service, True
            number.save()
        audit.record(service.id, "inbound_number.assign", subject_id=number.id, after={"number": number.number})
    return inbound_number_json(number)


def list_inbound_numbers(service_id: str) -> dict[str, Any]:
    service = find_service(service_id)
    rows = InboundNumber.select().where(InboundNumber.service == service).order_by(InboundNumber.created_at)
    return {"inbound_numbers": [inbound_number_json(row) for row in rows]}


def _routes(kind: str) -> None:
    # One pair of routes per kind; the endpoint names must differ for Flask.
    def post(service_id: str) -> tuple[Response, int]:
        return jsonify(add_setting(kind, service_id, json_body())), 201

    def get(service_id: str) -> Response:
        return jsonify(list_settings(kind, service_id))

    one, many = responses.settings[kind]
    path = admin_schemas.service_path["properties"]
    documented(f"Add one of the service's {kind}.", {201: one}, body=KINDS[kind][2], path=path)(post)
    documented(f"The service's {kind}.", {200: many}, path=path)(get)

    def get_one(service_id: str, setting_id: str) -> Response:
        return jsonify(setting_json(kind, find_setting(kind, service_id, setting_id)))

    def patch(service_id: str, setting_id: str) -> Response:
        return jsonify(update_setting(kind, service_id, setting_id, json_body()))

    one_path = {**path, **admin_schemas.setting_path["properties"]}
    documented(f"One of the service's {kind}.", {200: one}, path=one_path)(get_one)
    documented(f"Change one of the service's {kind}, or make it the default.", {200: one},
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
            body=admin_schemas.assign_inbound_number, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def post_inbound_number(service_id: str) -> tuple[Response, int]:
    return jsonify(assign_inbound_number(service_id, json_body())), 201


@admin_blueprint.get("/services/<service_id>/inbound-number")
@documented("The service's inbound numbers.", {200: responses.inbound_numbers}, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_inbound_numbers(service_id: str) -> Response:
    return jsonify(list_inbound_numbers(service_id))
