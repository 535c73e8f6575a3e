"""Which provider serves each channel, chosen from the settings, one instance per process.

Instances are cached because they hold kept-alive connections (SMTP, HTTP). The cache key holds the
process id, so a forked worker builds its own instead of sharing its parent's sockets, and the
configuration, so tests that change settings get a provider that matches them.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from pipeline.infrastructure.providers.email.smtp import SmtpProvider
from pipeline.infrastructure.providers.errors import EmailProvider, SmsProvider
from pipeline.infrastructure.providers.simulated import SimulatedEmailProvider, SimulatedSmsProvider
from pipeline.infrastructure.providers.sms import types
from pipeline.infrastructure.providers.sms.cm import CmGateway
from pipeline.infrastructure.providers.sms.gateways import webhook_urls
from pipeline.infrastructure.providers.sms.http_gateway import HttpSmsGateway
from pipeline.infrastructure.providers.sms.spryng import SpryngGateway
from pipeline.infrastructure.providers.sms.twilio import TwilioGateway

if TYPE_CHECKING:
    from config import Settings
    from models.sms_gateway import SmsGateway

T = TypeVar("T")
_cache: dict[tuple, object] = {}
_lock = threading.Lock()
# A forked child builds its own (its parent's hold connections it must not share); looked up on
# every send, so without a system call or a lock once built.
os.register_at_fork(after_in_child=_cache.clear)


def _cached(key: tuple, build: Callable[[], T]) -> T:
    found = _cache.get(key)
    if found is None:
        with _lock:
            found = _cache.get(key)
            if found is None:
                found = _cache[key] = build()
    return found  # type: ignore[return-value]


def email_provider(settings: Settings, *, simulated: bool = False) -> EmailProvider:
    """SMTP when SMTP_URL is set and the message is real; the simulator otherwise."""
    if settings.smtp_url and not simulated:
        url, timeout = settings.smtp_url, settings.smtp_timeout_seconds
        return _cached(("email", url, timeout), lambda: SmtpProvider(url, timeout=timeout))
    return _cached(("email", "simulated"), SimulatedEmailProvider)


SMTP_FALLBACK = "smtp-fallback"


def email_providers(settings: Settings) -> list[EmailProvider]:
    """The SMTP relay, then SMTP_FALLBACK_URL's when set (pipeline/stages/failover.py)."""
    providers = [email_provider(settings)]
    if settings.smtp_url and settings.smtp_fallback_url:
        url, timeout = settings.smtp_fallback_url, settings.smtp_timeout_seconds
        providers.append(_cached(("email", url, timeout, SMTP_FALLBACK),
                                 lambda: SmtpProvider(url, timeout=timeout, name=SMTP_FALLBACK)))
    return providers


def sms_gateway(settings: Settings, gateway: SmsGateway) -> SmsProvider:
    """The client of one of several gateways (pipeline/infrastructure/providers/sms/gateways.py), of its type; its
    receipts come to webhooks under its own name."""
    callback_url = webhook_urls(settings, gateway)["delivery_reports"]
    key = ("sms", gateway.type, gateway.name, gateway.url, gateway.token, gateway.account_sid,
           gateway.messaging_service_sid, callback_url, settings.sms_gateway_timeout_seconds,
           settings.sms_gateway_deduplicates)
    return _cached(key, lambda: _gateway_client(settings, gateway, callback_url))


def _gateway_client(settings: Settings, gateway: SmsGateway, callback_url: str) -> SmsProvider:
    timeout, name, url, token = settings.sms_gateway_timeout_seconds, gateway.name, gateway.url, gateway.token
    if gateway.type == types.SPRYNG:
        return SpryngGateway(url, token or "", timeout=timeout, name=name)
    if gateway.type == types.CM:
        return CmGateway(url, token or "", timeout=timeout, name=name)
    if gateway.type == types.TWILIO:
        return TwilioGateway(url, gateway.account_sid or "", token or "", status_callback=callback_url,
                             messaging_service_sid=gateway.messaging_service_sid, timeout=timeout, name=name)
    return HttpSmsGateway(url, token, callback_url=callback_url, timeout=timeout,
                          deduplicates=settings.sms_gateway_deduplicates, name=name)


def sms_provider(settings: Settings, *, simulated: bool = False) -> SmsProvider:
    """The HTTP gateway when SMS_GATEWAY_URL is set and the message is real; the simulator otherwise."""
    if settings.sms_gateway_url and not simulated:
        url, token = settings.sms_gateway_url, settings.sms_gateway_token
        callback_url = f"{settings.base_url}/providers/{HttpSmsGateway.name}/delivery-receipts"
        timeout, deduplicates = settings.sms_gateway_timeout_seconds, settings.sms_gateway_deduplicates
        key = ("sms", url, token, callback_url, timeout, deduplicates)
        return _cached(key, lambda: HttpSmsGateway(url, token, callback_url=callback_url, timeout=timeout,
                                                   deduplicates=deduplicates))
    return _cached(("sms", "simulated"), SimulatedSmsProvider)
