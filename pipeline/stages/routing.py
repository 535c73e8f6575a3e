"""The route step of delivery: which providers a send is tried at, in turn, and how.

Test keys, and a channel with no real provider, get the simulator; texts go to the SMS gateways in
use (pipeline/infrastructure/providers/sms/gateways.py) in the order selection.order gives them:
drawn by share, without those out of rotation, slow ones with half their share; a text pinned to a
gateway (its outcome there unknown) goes to that one only; emails go to the SMTP relay, then to
SMTP_FALLBACK_URL's. What the worker processes share about the gateways (their circuit breaker, pace
and slow verdicts, kept in Redis) comes in as a Gateways value, so no stage imports a worker.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from config import Settings, get_settings
from models.notification import Notification
from pipeline.infrastructure.providers import EmailProvider, SmsProvider
from pipeline.infrastructure.providers.registry import email_provider, email_providers, sms_gateway, sms_provider
from pipeline.infrastructure.providers.simulated import is_simulator, receipts
from pipeline.infrastructure.providers.sms import gateways as sms_gateways, selection
from pipeline.infrastructure.providers.sms.circuit import CircuitBreaker
from pipeline.infrastructure.providers.sms.pacing import Pacing
from pipeline.stages import dispatch

Provider = SmsProvider | EmailProvider
Sends = list[tuple[Notification, dispatch.Dispatched]]


@dataclass(frozen=True)
class Gateways:
    """What the workers agree on about the SMS gateways, and where the simulator's receipts go."""

    circuit: Callable[[], CircuitBreaker]
    pacing: Callable[[CircuitBreaker], Pacing]
    slow: Callable[[], set[str]]
    queue_receipts: Callable[[list[dict]], None]


@dataclass(frozen=True)
class Route:
    """A send's providers, in turn; the gateways' circuit breaker and pace where SMS gateways are
    called; and, for a provider that reports from here (the simulator), what queues its receipts
    inside the record's transaction."""

    providers: list[Provider]
    circuit: CircuitBreaker | None = None
    pacing: Pacing | None = None
    reports: Callable[[Sends], None] | None = None


def route(notification: Notification, gateways: Gateways) -> Route:
    """The route of a claimed send. Anything raised before a provider is called gives the claim back:
    kept, it would leave the notification `created` with no message to move it (its retry finds it
    claimed) until the unknown-outcome timeout."""
    try:
        rotation = gateways.circuit() if notification.notification_type == "sms" else None
        providers = providers_for(notification, gateways, circuit=rotation)
        if is_simulator(providers):
            return Route(providers, reports=lambda sends: gateways.queue_receipts(receipts(sends)))
        return Route(providers, rotation, gateways.pacing(rotation) if rotation is not None else None)
    except BaseException:
        dispatch.release(str(notification.id))
        raise


def providers_for(notification: Notification, gateways: Gateways, *,
                  circuit: CircuitBreaker | None = None) -> list[Provider]:
    """The providers to try for this notification, in turn; an empty list: no gateway can take the
    text now. `gateways.slow` is asked only when there are gateways to choose from (it costs a Redis
    round trip)."""
    settings = get_settings()
    if notification.key_type == "test":
        choose = sms_provider if notification.notification_type == "sms" else email_provider
        return [choose(settings, simulated=True)]
    if notification.notification_type == "email":
        return list(email_providers(settings))
    rows = sms_gateways.in_use(settings)
    if not rows:
        return [sms_provider(settings)]
    by_name = {row.name: row for row in rows}
    if notification.sent_by in by_name:  # pinned: that gateway may already have it
        return [sms_gateway(settings, by_name[notification.sent_by])]
    rotation = circuit if circuit is not None else gateways.circuit()
    order = selection.order(sms_gateways.candidates(rows), international=notification.international,
                            unavailable=rotation.unavailable(by_name), slow=gateways.slow(), draw=random.random())
    return [sms_gateway(settings, by_name[name]) for name in order]


def only_simulated(channel: str, settings: Settings | None = None) -> bool:
    """Whether a live key's notification on this channel goes to the simulator: no real provider is
    configured for it."""
    settings = settings or get_settings()
    if channel == "email":
        return not settings.smtp_url
    return not sms_gateways.in_use(settings) and not settings.sms_gateway_url
