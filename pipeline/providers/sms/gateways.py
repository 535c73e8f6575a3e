"""The SMS gateways in use: those named in configuration, kept in the database with every change.

Configuration, read once per process and added to the database when missing:
    SMS_GATEWAY_URL, SMS_GATEWAY_TOKEN     one gateway named "http-gateway" (international: yes)
    SMS_GATEWAYS='[{"name": "gw-a", "type": "twilio", "url": "https://...", "token": "...",
                    "account_sid": "AC...", "messaging_service_sid": "MG...", "priority": 70,
                    "international": true}, ...]'
`type` is json (the default), spryng, cm or twilio (types.py); a real provider's url defaults to its
API's address. The database then holds each gateway's priority, international support and whether it
is in use (changed through the admin API, without a restart; every process sees a change within
CACHE_TTL_SECONDS); a configured gateway's type, URL and credentials follow its configuration.

Spryng and CM sign nothing they post to us, so their webhook addresses end in a token of ours:
one per gateway, derived from PROVIDER_WEBHOOK_TOKEN (webhook_token), so one gateway's address
opens no other webhook. Twilio signs its requests (X-Twilio-Signature) with the gateway's auth token.

A gateway's URL follows the rules of every outbound address (pipeline/outbound.py): https to a public
address, loopback (by http too) only with CALLBACKS_ALLOW_HTTP_LOOPBACK on, for a local set-up.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import threading
from typing import TYPE_CHECKING, Any

import peewee

from models import cache
from models.db import database, utcnow
from models.sms_gateway import SmsGateway, SmsGatewayChange
from pipeline import outbound
from pipeline.providers.sms import types
from pipeline.providers.sms.selection import Candidate

if TYPE_CHECKING:
    from config import Settings

LEGACY_NAME = "http-gateway"
DEFAULT_PRIORITY = 10
SETTINGS = ("type", "url", "token", "account_sid", "messaging_service_sid", "priority", "supports_international",
            "active")
# What a configured gateway takes from its configuration, whatever was changed elsewhere.
FROM_CONFIGURATION = ("type", "url", "token", "account_sid", "messaging_service_sid")
_OPTIONAL = ("token", "account_sid", "messaging_service_sid")  # recorded in a gateway's first entry only when set
_synced: set[tuple] = set()
_parsed: dict[tuple, list[dict[str, Any]]] = {}
_lock = threading.Lock()


def url_problem(url: str, *, look_up: bool = True) -> str | None:
    """Why a gateway URL is refused, or None; `look_up`: resolve a name and check its addresses too."""
    return outbound.url_problem(url, allow_loopback=outbound.loopback_allowed(),
                                resolver=outbound.system_resolver if look_up else None)


def configured(settings: Settings) -> list[dict[str, Any]]:
    """The gateways the configuration names; raises ValueError for SMS_GATEWAYS it cannot read or a
    URL it refuses (its name is looked up at every connection instead)."""
    gateways: list[dict[str, Any]] = []
    if settings.sms_gateway_url:
        gateways.append({"name": LEGACY_NAME, "type": types.JSON, "url": settings.sms_gateway_url,
                         "token": settings.sms_gateway_token, "account_sid": None, "messaging_service_sid": None,
                         "priority": DEFAULT_PRIORITY, "supports_international": True})
    entries = json.loads(settings.sms_gateways) if settings.sms_gateways else []
    if not isinstance(entries, list):
        raise ValueError("SMS_GATEWAYS must be a JSON array of gateways")
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("name"):
            raise ValueError(f"every gateway in SMS_GATEWAYS needs a name: {entry!r}")
        kind = str(entry.get("type") or types.JSON)
        url = entry.get("url") or types.DEFAULT_URLS.get(kind, "")
        gateways.append({"name": str(entry["name"]), "type": kind, "url": str(url), "token": entry.get("token"),
                         "account_sid": entry.get("account_sid"),
                         "messaging_service_sid": entry.get("messaging_service_sid"),
                         "priority": int(entry.get("priority", DEFAULT_PRIORITY)),
                         "supports_international": bool(entry.get("international", False))})
    for gateway in gateways:
        refused = url_problem(str(gateway["url"]), look_up=False)
        problem = (types.settings_problem(gateway["type"], gateway["token"], gateway["account_sid"])
                   or (f"url {refused}" if refused else None))
        if problem:
            raise ValueError(f"SMS gateway {gateway['name']}: {problem}")
    return gateways


def change(gateway: SmsGateway, changes: dict[str, Any], *, by: str) -> SmsGateway:
    """Apply setting changes to a gateway and record them; the token's value is never recorded."""
    recorded = {}
    for field, value in changes.items():
        before = getattr(gateway, field)
        if before == value:
            continue
        recorded[field] = ["***", "***"] if field == "token" else [before, value]
        setattr(gateway, field, value)
    if recorded:
        with database.atomic():
            gateway.updated_at = utcnow()
            gateway.save()
            SmsGatewayChange.create(gateway=gateway, changed_by=by, changes=recorded)
    return gateway


def add(fields: dict[str, Any], *, by: str, from_configuration: bool = False) -> SmsGateway:
    """A new gateway with its first history entry; raises peewee.IntegrityError for a name in use."""
    with database.atomic():
        gateway = SmsGateway.create(from_configuration=from_configuration, **fields)
        SmsGatewayChange.create(gateway=gateway, changed_by=by, changes={
            field: [None, "***" if field == "token" else getattr(gateway, field)]
            for field in SETTINGS if field not in _OPTIONAL or getattr(gateway, field)})
    return gateway


def sync_configured(settings: Settings) -> None:
    """Add the configured gateways that are missing; bring their type, URL and credentials in line."""
    for entry in configured(settings):
        gateway = SmsGateway.get_or_none(SmsGateway.name == entry["name"])
        if gateway is None:
            try:
                add(entry, by="configuration", from_configuration=True)
            except peewee.IntegrityError:
                pass  # another process added it at the same moment
        else:
            change(gateway, {field: entry[field] for field in FROM_CONFIGURATION}, by="configuration")


def in_use(settings: Settings) -> list[SmsGateway]:
    """Every gateway, read through the hot-path cache; the configured ones are added (and their URL
    and token brought in line) once per process, and again should one go missing."""
    def load() -> list[SmsGateway]:
        return list(SmsGateway.select().order_by(SmsGateway.name))

    rows = cache.cached(("sms-gateways",), load)
    key = (os.getpid(), settings.sms_gateway_url, settings.sms_gateway_token, settings.sms_gateways)
    names = {row.name for row in rows}
    if key not in _synced or any(entry["name"] not in names for entry in _configured(key, settings)):
        with _lock:
            sync_configured(settings)
            _synced.add(key)
        cache.clear()
        rows = load()
    return rows


def _configured(key: tuple, settings: Settings) -> list[dict[str, Any]]:
    # Parsed once per configuration: this runs on every send.
    if key not in _parsed:
        _parsed[key] = configured(settings)
    return _parsed[key]


def webhook_token(settings: Settings, name: str) -> str:
    """The token in the webhook addresses of a gateway whose provider signs nothing."""
    return hmac.new(settings.provider_webhook_token.encode(), f"sms-webhooks:{name}".encode(),
                    hashlib.sha256).hexdigest()[:40]


def webhook_urls(settings: Settings, gateway: SmsGateway) -> dict[str, str]:
    """The addresses to give the provider: its delivery reports, and the texts sent to our numbers.
    A json gateway is told the first with each message and authenticates with the bearer token."""
    base = f"{settings.base_url}/providers/{gateway.name}"
    if gateway.type == types.JSON:
        return {"delivery_reports": f"{base}/delivery-receipts", "received_texts": f"{base}/inbound-sms"}
    suffix = "" if gateway.type == types.TWILIO else f"/{webhook_token(settings, gateway.name)}"
    return {"delivery_reports": f"{base}/status-reports{suffix}", "received_texts": f"{base}/received-texts{suffix}"}


def candidates(gateways: list[SmsGateway]) -> list[Candidate]:
    return [Candidate(g.name, g.priority, g.supports_international, g.active) for g in gateways]
