"""A service's case-events link (issue 52): its ZGW APIs and credentials (never answered back), the case
types taking part and the templates, its subscription at Open Notificaties, and the events kept per case
(the rules are core.case_events)."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

from api.admin import case_event_schemas as schemas
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import integer_argument, json_body
from api.schema import validate
from core import case_events
from core.services import find_service
from models.case_event import CaseEvent, CaseEventLink
from pipeline.domain.formatting import iso

DEFAULT_EVENTS_LIMIT = 50
_RULE = "/services/<service_id>/case-events"
_PATH = schemas.link_path["properties"]


def link_json(link: CaseEventLink) -> dict[str, Any]:
    detail = link.subscription_detail or {}
    return {
        "id": str(link.id), "callback_url": case_events.callback_url(link),
        "zaken_root": link.zaken_root, "catalogi_root": link.catalogi_root, "klant_root": link.klant_root,
        "client_id": link.client_id, "nrc_root": link.nrc_root, "nrc_client_id": link.nrc_client_id,
        "credentials_set": {"client_secret": bool(link.client_secret), "klant_token": bool(link.klant_token),
                            "nrc_secret": bool(link.nrc_secret)},
        "case_types": list(link.case_types or []), "templates": dict(link.templates or {}),
        "subscription": {"url": link.subscription_url, "state": link.subscription_state,
                         "checked_at": iso(link.subscription_checked_at), "status": detail.get("status"),
                         "code": detail.get("code")},
        "updated_at": iso(link.updated_at),
    }


def event_json(event: CaseEvent) -> dict[str, Any]:
    return {
        "id": str(event.id), "received_at": iso(event.received_at), "updated_at": iso(event.updated_at),
        "state": event.state, "detail": event.detail, "attempts": event.attempts,
        "zaak_identificatie": event.zaak_identificatie, "status_omschrijving": event.status_omschrijving,
        "scenario": event.scenario, "channel": event.channel,
        "notification_id": str(event.notification_id) if event.notification_id else None,
        "klantcontact": event.contact_state,
    }


@admin_blueprint.put(_RULE)
@documented("Link the service to its ZGW APIs: roots, credentials, case types taking part and templates.",
            {200: schemas.link}, body=schemas.put_link, path=_PATH)
def put_case_events(service_id: str) -> Response:
    find_service(service_id)
    data = validate(schemas.put_link, json_body())
    return jsonify(link_json(case_events.set_link(service_id, data)))


@admin_blueprint.get(_RULE)
@documented("The service's link to its ZGW APIs (never its credentials).", {200: schemas.link}, path=_PATH)
def get_case_events(service_id: str) -> Response:
    return jsonify(link_json(case_events.find_link(service_id)))


@admin_blueprint.delete(_RULE)
@documented("Remove the link, its events and its subscription at Open Notificaties.", {204: None}, path=_PATH)
def delete_case_events(service_id: str) -> tuple[str, int]:
    case_events.remove_link(service_id)
    return "", 204


@admin_blueprint.post(_RULE + "/subscription")
@documented("Subscribe the service at Open Notificaties (again); the answer says whether it holds.",
            {200: schemas.link}, path=_PATH)
def post_subscription(service_id: str) -> Response:
    return jsonify(link_json(case_events.register(service_id)))


@admin_blueprint.get(_RULE + "/subscription")
@documented("Read the subscription back from Open Notificaties; the answer says whether it holds.",
            {200: schemas.link}, path=_PATH)
def get_subscription(service_id: str) -> Response:
    return jsonify(link_json(case_events.check(service_id)))


@admin_blueprint.get(_RULE + "/events")
@documented("The case events received, newest first, with what became of each; one case's with zaak.",
            {200: schemas.events}, query=schemas.events_query, path=_PATH)
def get_events(service_id: str) -> Response:
    query = {"limit": integer_argument("limit", DEFAULT_EVENTS_LIMIT)}
    if "zaak" in request.args:
        query["zaak"] = request.args["zaak"]
    validate(schemas.events_query, query)
    found = case_events.list_events(service_id, zaak=query.get("zaak"), limit=query["limit"])
    return jsonify({"events": [event_json(event) for event in found]})


@admin_blueprint.post(_RULE + "/events/<event_id>/retry")
@documented("Process again an event that ended without a message (once its cause is put right).",
            {200: schemas.event}, path=schemas.event_path["properties"])
def retry_event(service_id: str, event_id: str) -> Response:
    return jsonify(event_json(case_events.retry_event(service_id, event_id)))
