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
from models import crypto
from models.sms_gateway import SmsGateway, SmsGatewayChange
from pipeline.domain.errors import BadRequestError, Misconfigured, NoResultFound, ValidationError
from pipeline.infrastructure.providers.sms import gateways, types
from pipeline.infrastructure.providers.sms.pacing import Limits
from workers.sms_rotation import circuit, slow

# Who the gateway history names for changes made here (the configuration names itself).
CHANGED_BY = "admin-api"


@dataclass(frozen=True)
class GatewayState:
    """A gateway with where it stands now: sending (active and not taken out by the circuit
    breaker), whether its delivery receipts are slow, the webhook addresses to give its provider,
    what the service refuses about its settings (stored before a setting changed), if anything, and
    its pace (its settings, or its type's defaults)."""
    gateway: SmsGateway
    in_rotation: bool
    slow_receipts: bool
    webhooks: dict[str, str]
    problem: str | None
    limits: Limits


def _states(rows: list[SmsGateway]) -> list[GatewayState]:
    settings = get_settings()
    out, slow_now = circuit().unavailable([row.name for row in rows]), slow()
    return [GatewayState(row, row.active and row.name not in out, row.name in slow_now,
                         gateways.webhook_urls(settings, row),
                         gateways.gateway_problem(row.type, row.url, row.token, row.account_sid, look_up=False),
                         gateways.limits(row))
            for row in rows]


def find_gateway(gateway_id: str) -> SmsGateway:
    """The gateway named in a path: 400 for a malformed id, 404 for an unknown one."""
    gateway = SmsGateway.get_or_none(SmsGateway.id == checked_uuid("gateway_id", gateway_id))
    if gateway is None:
        raise NoResultFound()
    return gateway


def list_gateways() -> list[GatewayState]:
    """Every gateway; raises Misconfigured (409) when SMS_GATEWAY_URL or SMS_GATEWAYS cannot be read,
    or a stored gateway's token cannot be decrypted."""
    try:
        rows = gateways.in_use(get_settings())
    except Misconfigured:
        raise
    except crypto.UNREADABLE:  # ValueError among them: Misconfigured is one, passed on above
        raise Misconfigured(*gateways.stored_problems(in_use_only=False)) from None
    return _states(rows)


def add_gateway(name: str, url: str | None = None, type: str = types.JSON, **settings: Any) -> GatewayState:
    """A new gateway of a type (json when not given); `url` defaults to a real provider's API
    address; `settings` are token, account_sid, messaging_service_sid, priority,
    supports_international, active, max_per_second and max_in_flight."""
    url = url or types.DEFAULT_URLS.get(type)
    if url is None:
        raise ValidationError("url is a required property")
    problem = gateways.gateway_problem(type, url, settings.get("token"), settings.get("account_sid"))
    if problem:
        raise ValidationError(problem)
    try:
        gateway = gateways.add({"name": name, "type": type, "url": url, **settings}, by=CHANGED_BY)
    except peewee.IntegrityError:
        raise BadRequestError(f"An SMS gateway named '{name}' already exists") from None
    return _states([gateway])[0]


_RULED = ("type", "url", "token", "account_sid")  # what the gateway rule reads


def change_gateway(gateway_id: str, *, by: str = CHANGED_BY, **changes: Any) -> GatewayState:
    """Change only the settings given (type, url, token, account_sid, messaging_service_sid,
    priority, supports_international, active, max_per_second, max_in_flight; None for a pace setting:
    its type's default). The gateway must pass its rule afterwards, unless it
    is taken out of use and given no new address or credentials: one the service refuses (stored
    before a setting changed) can always be turned off. `by` names the door in the gateway's history."""
    gateway = find_gateway(gateway_id)
    if gateway.from_configuration and set(gateways.FROM_CONFIGURATION) & changes.keys():
        raise ValidationError("type, url and credentials of a configured gateway are changed in its configuration")
    merged = {field: changes.get(field, getattr(gateway, field)) for field in _RULED}
    problem = gateways.gateway_problem(merged["type"], merged["url"], merged["token"], merged["account_sid"],
                                       look_up="url" in changes)
    if problem and (changes.get("active", gateway.active) or set(_RULED) & changes.keys()):
        raise ValidationError(problem)
    return _states([gateways.change(gateway, changes, by=by)])[0]


def gateway_history(gateway_id: str) -> list[SmsGatewayChange]:
    """Every change to the gateway, newest first."""
    gateway = find_gateway(gateway_id)
    return list(SmsGatewayChange.select().where(SmsGatewayChange.gateway == gateway)
                .order_by(SmsGatewayChange.changed_at.desc(), SmsGatewayChange.id.desc()))
