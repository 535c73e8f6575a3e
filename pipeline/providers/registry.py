"""Which provider serves each channel, chosen from the settings, one instance per process.

Instances are cached because they hold kept-alive connections (SMTP, HTTP). The cache key holds the
process id, so a forked worker builds its own instead of sharing its parent's sockets, and the
configuration, so tests that change settings get a provider that matches them.
"""
from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Callable, TypeVar

from pipeline.providers.email.smtp import SmtpProvider
from pipeline.providers.errors import EmailProvider, SmsProvider
from pipeline.providers.simulated import SimulatedEmailProvider, SimulatedSmsProvider
from pipeline.providers.sms.http_gateway import HttpSmsGateway

if TYPE_CHECKING:
    from config import Settings

T = TypeVar("T")
_cache: dict[tuple, object] = {}
_lock = threading.Lock()


def _cached(key: tuple, build: Callable[[], T]) -> T:
    key = (os.getpid(), *key)
    with _lock:
        if key not in _cache:
            _cache[key] = build()
        return _cache[key]  # type: ignore[return-value]


def email_provider(settings: Settings, *, simulated: bool = False) -> EmailProvider:
    """SMTP when SMTP_URL is set and the message is real; the simulator otherwise."""
    if settings.smtp_url and not simulated:
        url = settings.smtp_url
        return _cached(("email", url), lambda: SmtpProvider(url))
    return _cached(("email", "simulated"), SimulatedEmailProvider)


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
