"""SMS gateways: list them with their rotation state, add one, change its settings, read its history.

The token (each type's secret) is stored encrypted and never read back out here. A configured
gateway's type, URL and credentials follow its configuration (SMS_GATEWAYS), so they are not changed here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import peewee

from config import get_settings
from core.ids import checked_uuid
from models.sms_gateway import SmsGateway, SmsGatewayChange
from pipeline.errors import BadRequestError, NoResultFound, ValidationError
from pipeline.providers.sms import gateways, types
from workers.sms_rotation import circuit, slow

# Who the gateway history names for changes made here (the configuration names itself).
CHANGED_BY = "admin-api"


@dataclass(frozen=True)
class GatewayState:
    """A gateway with where it stands now: sending (active and not taken out by the circuit
    breaker), whether its delivery receipts are slow, and the webhook addresses to give its provider."""
    gateway: SmsGateway
    in_rotation: bool
    slow_receipts: bool
    webhooks: dict[str, str]


def _states(rows: list[SmsGateway]) -> list[GatewayState]:
    settings = get_settings()
    out, slow_now = circuit().unavailable([row.name for row in rows]), slow()
    return [GatewayState(row, row.active and row.name not in out, row.name in slow_now,
                         gateways.webhook_urls(settings, row)) for row in rows]


def find_gateway(gateway_id: str) -> SmsGateway:
    """The gateway named in a path: 400 for a malformed id, 404 for an unknown one."""
    gateway = SmsGateway.get_or_none(SmsGateway.id == checked_uuid("gateway_id", gateway_id))
    if gateway is None:
        raise NoResultFound()
    return gateway


def list_gateways() -> list[GatewayState]:
    return _states(gateways.in_use(get_settings()))


def _check_url(url: str) -> None:
    problem = gateways.url_problem(url)
    if problem:
        raise ValidationError(f"url {problem}")


def _check_settings(kind: str, token: str | None, account_sid: str | None) -> None:
    problem = types.settings_problem(kind, token, account_sid)
    if problem:
        raise ValidationError(problem)


def add_gateway(name: str, url: str | None = None, type: str = types.JSON, **settings: Any) -> GatewayState:
    """A new gateway of a type (json when not given); `url` defaults to a real provider's API
    address; `settings` are token, account_sid, messaging_service_sid, priority,
    supports_international and active."""
    url = url or types.DEFAULT_URLS.get(type)
    if url is None:
        raise ValidationError("url is a required property")
    _check_settings(type, settings.get("token"), settings.get("account_sid"))
    _check_url(url)
    try:
        gateway = gateways.add({"name": name, "type": type, "url": url, **settings}, by=CHANGED_BY)
    except peewee.IntegrityError:
        raise BadRequestError(f"An SMS gateway named '{name}' already exists") from None
    return _states([gateway])[0]


def change_gateway(gateway_id: str, **changes: Any) -> GatewayState:
    """Change only the settings given (type, url, token, account_sid, messaging_service_sid,
    priority, supports_international, active)."""
    gateway = find_gateway(gateway_id)
    if gateway.from_configuration and set(gateways.FROM_CONFIGURATION) & changes.keys():
        raise ValidationError("type, url and credentials of a configured gateway are changed in its configuration")
    if "url" in changes:
        _check_url(changes["url"])
    merged = {field: changes.get(field, getattr(gateway, field)) for field in ("type", "token", "account_sid")}
    _check_settings(merged["type"], merged["token"], merged["account_sid"])
    return _states([gateways.change(gateway, changes, by=CHANGED_BY)])[0]


def gateway_history(gateway_id: str) -> list[SmsGatewayChange]:
    """Every change to the gateway, newest first."""
    gateway = find_gateway(gateway_id)
    return list(SmsGatewayChange.select().where(SmsGatewayChange.gateway == gateway)
                .order_by(SmsGatewayChange.changed_at.desc(), SmsGatewayChange.id.desc()))
