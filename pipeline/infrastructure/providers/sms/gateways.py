"""The SMS gateways in use: those named in configuration, kept in the database with every change.

Configuration, read once per process and added to the database when missing:
    SMS_GATEWAY_URL, SMS_GATEWAY_TOKEN     one gateway named "http-gateway" (international: yes)
    SMS_GATEWAYS='[{"name": "gw-a", "type": "twilio", "url": "https://...", "token": "...",
                    "account_sid": "AC...", "messaging_service_sid": "MG...", "priority": 70,
                    "international": true, "max_per_second": 50, "max_in_flight": 20}, ...]'
`type` is json (the default), spryng, cm or twilio (types.py); a real provider's url defaults to its
API's address. The database then holds each gateway's priority, international support and whether it
is in use (changed through the admin API, without a restart; every process sees a change within
CACHE_TTL_SECONDS); a configured gateway's type, URL and credentials follow its configuration.

Spryng and CM sign nothing they post to us, so their webhook addresses end in a token of ours:
one per gateway, derived from PROVIDER_WEBHOOK_TOKEN (webhook_token), so one gateway's address
opens no other webhook. Twilio signs its requests (X-Twilio-Signature) with the gateway's auth token.

A gateway's URL follows the rules of every outbound address (pipeline/infrastructure/outbound.py): https to a public
address, loopback (by http too) only with CALLBACKS_ALLOW_HTTP_LOOPBACK on, for a local set-up.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import threading
from typing import TYPE_CHECKING, Any

import peewee

from models import cache, crypto
from models.db import database, utcnow
from models.sms_gateway import SmsGateway, SmsGatewayChange
from pipeline.domain.errors import Misconfigured, Refusal
from pipeline.infrastructure import outbound
from pipeline.infrastructure.providers.sms import pacing, types
from pipeline.infrastructure.providers.sms.selection import Candidate

if TYPE_CHECKING:
    from config import Settings

LEGACY_NAME = "http-gateway"
DEFAULT_PRIORITY = 10
SETTINGS = ("type", "url", "token", "account_sid", "messaging_service_sid", "priority", "supports_international",
            "active", "max_per_second", "max_in_flight")
# What a configured gateway takes from its configuration, whatever was changed elsewhere.
FROM_CONFIGURATION = ("type", "url", "token", "account_sid", "messaging_service_sid")
# Recorded in a gateway's first entry only when set.
_OPTIONAL = ("token", "account_sid", "messaging_service_sid", "max_per_second", "max_in_flight")
_synced: set[tuple] = set()
_parsed: dict[tuple, list[dict[str, Any]]] = {}
_lock = threading.Lock()
os.register_at_fork(after_in_child=_synced.clear)  # a forked process syncs once of its own


# A gateway's name is part of its webhook addresses (/providers/<name>/...).
NAME_PATTERN = "^[a-z0-9][a-z0-9-]{0,62}$"


def url_problem(url: str, *, look_up: bool = True) -> Refusal | None:
    """Why a gateway URL is refused, or None; `look_up`: resolve a name and check its addresses too."""
    return outbound.url_problem(url, allow_loopback=outbound.loopback_allowed(),
                                resolver=outbound.system_resolver if look_up else None)


def gateway_problem(kind: str, url: str, token: str | None, account_sid: str | None, *,
                    look_up: bool = True) -> str | None:
    """What makes a gateway with these settings unusable, or None: the one rule for every gateway,
    configured (SMS_GATEWAY_URL, SMS_GATEWAYS), stored, or given to the admin API."""
    problem = types.settings_problem(kind, token, account_sid)
    if problem:
        return problem
    refused = url_problem(url, look_up=look_up)
    return refused.about("url") if refused else None


def _entry(position: int, entry: object) -> dict[str, Any]:
    """One gateway of SMS_GATEWAYS as a row's fields; raises ValueError saying what is wrong with it
    (never quoting the entry, which may hold a token)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
        raise ValueError(f"gateway {position} of the array needs a name")
    name = entry["name"]
    if not re.fullmatch(NAME_PATTERN, name):
        raise ValueError(f"gateway name {name[:80]!r} does not match {NAME_PATTERN}")
    kind = str(entry.get("type") or types.JSON)
    priority = entry.get("priority", DEFAULT_PRIORITY)
    if not isinstance(priority, int) or isinstance(priority, bool) or not 0 <= priority <= 100:
        raise ValueError(f"SMS gateway {name}: priority must be a whole number from 0 to 100")
    url = str(entry.get("url") or types.DEFAULT_URLS.get(kind, ""))
    gateway = {"name": name, "type": kind, "url": url, "token": entry.get("token"),
               "account_sid": entry.get("account_sid"), "messaging_service_sid": entry.get("messaging_service_sid"),
               "priority": priority, "supports_international": bool(entry.get("international", False)),
               **{field: _pace(name, entry, field) for field in PACE}}
    problem = gateway_problem(kind, url, gateway["token"], gateway["account_sid"], look_up=False)
    if problem:
        raise ValueError(f"SMS gateway {name}: {problem}")
    return gateway


PACE = {"max_per_second": pacing.MAX_PER_SECOND, "max_in_flight": pacing.MAX_IN_FLIGHT}


def _pace(name: str, entry: dict[str, Any], field: str) -> int | None:
    """A pace setting of an SMS_GATEWAYS entry: a whole number from 1 to its maximum, or absent."""
    value = entry.get(field)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= PACE[field]:
        raise ValueError(f"SMS gateway {name}: {field} must be a whole number from 1 to {PACE[field]}")
    return value


def limits(gateway: SmsGateway) -> pacing.Limits:
    """The gateway's pace: its settings, its type's defaults where it has none."""
    return pacing.limits_of(gateway.type, gateway.max_per_second, gateway.max_in_flight)


def url_setting_problem(settings: Settings) -> str | None:
    """What is wrong with SMS_GATEWAY_URL, or None."""
    return url_problem(settings.sms_gateway_url, look_up=False) if settings.sms_gateway_url else None


def gateways_setting_problem(settings: Settings) -> str | None:
    """What is wrong with SMS_GATEWAYS, or None."""
    try:
        _configured_entries(settings)
    except ValueError as error:
        return str(error)
    return None


def configuration_problems(settings: Settings) -> list[str]:
    """What is wrong with SMS_GATEWAY_URL and SMS_GATEWAYS, a line each naming the setting."""
    found = (("SMS_GATEWAY_URL", url_setting_problem(settings)), ("SMS_GATEWAYS", gateways_setting_problem(settings)))
    return [f"{setting}: {problem}" for setting, problem in found if problem]


def _configured_entries(settings: Settings) -> list[dict[str, Any]]:
    if not settings.sms_gateways:
        return []
    try:
        entries = json.loads(settings.sms_gateways)
    except ValueError:
        raise ValueError("not valid JSON") from None
    if not isinstance(entries, list):
        raise ValueError("must be a JSON array of gateways")
    gateways = [_entry(position, entry) for position, entry in enumerate(entries, 1)]
    names = [gateway["name"] for gateway in gateways] + ([LEGACY_NAME] if settings.sms_gateway_url else [])
    if len(set(names)) < len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise ValueError(f"each gateway needs a name of its own: {', '.join(twice)} more than once"
                         + (f" ({LEGACY_NAME} is SMS_GATEWAY_URL's)" if LEGACY_NAME in twice else ""))
    return gateways


def configured(settings: Settings) -> list[dict[str, Any]]:
    """The gateways the configuration names; raises Misconfigured, naming the setting, for SMS_GATEWAYS it
    cannot read or a gateway it refuses (a URL's name is looked up at every connection instead)."""
    problems = configuration_problems(settings)
    if problems:
        raise Misconfigured(*problems)
    gateways: list[dict[str, Any]] = []
    if settings.sms_gateway_url:
        gateways.append({"name": LEGACY_NAME, "type": types.JSON, "url": settings.sms_gateway_url,
                         "token": settings.sms_gateway_token, "account_sid": None, "messaging_service_sid": None,
                         "priority": DEFAULT_PRIORITY, "supports_international": True, "max_per_second": None,
                         "max_in_flight": None})
    return gateways + _configured_entries(settings)


def stored_problems(*, in_use_only: bool = True) -> list[str]:
    """What is wrong with the gateways the database holds (added through the admin API, or configured
    once), those in use only unless told: a line each, naming the gateway. One stored under settings
    that have changed since (CALLBACKS_ALLOW_HTTP_LOOPBACK turned off, SECRET_KEY replaced) is refused
    as one given now would be."""
    # The token column as stored (an alias the model does not decrypt), decrypted below one by one.
    query = SmsGateway.select(SmsGateway.name, SmsGateway.type, SmsGateway.url,
                              peewee.SQL('"token"').alias("sealed_token"), SmsGateway.account_sid) \
        .order_by(SmsGateway.name)
    found = []
    rows: Any = (query.where(SmsGateway.active) if in_use_only else query).tuples()
    for name, kind, url, sealed, account_sid in rows:
        try:  # read as stored: a token this SECRET_KEY did not seal is the problem, not an error
            token = crypto.decrypt(sealed) if sealed is not None else None
        except crypto.UNREADABLE:
            found.append(f"SMS gateway {name} (stored): its token cannot be decrypted with this SECRET_KEY")
            continue
        problem = gateway_problem(kind, url, token, account_sid, look_up=False)
        if problem:
            found.append(f"SMS gateway {name} (stored): {problem}")
    return found


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
    key = (settings.sms_gateway_url, settings.sms_gateway_token, settings.sms_gateways)
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
