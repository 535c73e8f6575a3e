"""The send step of delivery, with failover: the providers of a send's route (pipeline/stages/routing.py)
are called in turn, and the next one is tried only for a call that certainly did not reach the one
before it (RetryableProviderError), so no message reaches two providers.

Each gateway is called at its pace (pipeline/infrastructure/providers/sms/pacing.py): a gateway with no
room now, or one that answered 429, is passed over like one that is down, without counting against
it. Emails go to the SMTP relay, then to SMTP_FALLBACK_URL's. A call whose outcome is unknown is
never failed over: the notification is pinned to that gateway (its `sent_by`, set while it is still
`created`); at a gateway that drops repeats (`deduplicates`) it is retried there only; elsewhere it
waits for that gateway's lookup (pipeline/stages/unknown_outcomes.py) or its receipt.
"""
from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from models.notification import Notification, unindexed_status
from models.outages import REDIS_UNAVAILABLE
from pipeline.domain import statuses
from pipeline.infrastructure.providers import (
    EmailProvider,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsProvider,
)
from pipeline.infrastructure.providers.errors import TECHNICAL_FAILURE, Paced, RateLimited
from pipeline.infrastructure.providers.sms.circuit import CircuitBreaker
from pipeline.infrastructure.providers.sms.pacing import Pacing
from pipeline.stages import handover
from pipeline.stages.dispatch import Dispatched
from pipeline.stages.routing import Route

log = logging.getLogger(__name__)

Provider = SmsProvider | EmailProvider


class RetryAtSameProvider(OutcomeUnknownError):
    """The outcome is unknown at a provider that drops repeats: send again, to that provider only."""


# What a send comes back with: what the provider took, or the error of the last provider tried, of
# one of the three kinds (docs/architecture.md#provider-errors-sorted-at-the-client-boundary).
Answer = Dispatched | RetryableProviderError | OutcomeUnknownError | FinalProviderError


def send(notification: Notification, route: Route) -> Answer:
    """The providers' answer; a provider's error is returned, not raised."""
    try:
        return _send(notification, route.providers, circuit=route.circuit, pacing=route.pacing)
    except (RetryableProviderError, OutcomeUnknownError, FinalProviderError) as error:
        return error


def _send(notification: Notification, providers: list[Provider], *,
          circuit: CircuitBreaker | None, pacing: Pacing | None) -> Dispatched:
    """Call the providers in turn until one takes the message; raises what the last one raised."""
    if not providers:
        raise RetryableProviderError("no SMS gateway can take this text now: all are out of rotation")
    last: RetryableProviderError | None = None
    for provider in providers:
        try:
            sent = _paced_send(notification, provider, pacing)
        except (Paced, RateLimited) as error:  # not now, and no sign of trouble: the next one may take it
            if isinstance(error, RateLimited) and pacing is not None:
                pacing.hold_off(provider.name, error.retry_after)
            log.info("%s did not take %s now (%s)", provider.name, notification.id, error)
            last = error
            continue
        except RetryableProviderError as error:  # certainly not there: the next one may take it
            _failed(circuit, provider)
            log.info("%s did not take %s (%s); %s", provider.name, notification.id, error,
                     "trying the next provider" if provider is not providers[-1] else "no provider left")
            last = error
            continue
        except OutcomeUnknownError as error:
            _failed(circuit, provider)
            if circuit is not None or provider.deduplicates:  # an SMS gateway: its lookup asks there
                _pin(notification, provider.name)
            if provider.deduplicates:
                raise RetryAtSameProvider(str(error)) from error
            raise
        except FinalProviderError as error:
            if error.status == TECHNICAL_FAILURE:  # our request is wrong for it: credentials, URL
                _failed(circuit, provider)
            raise
        if circuit is not None:
            with _bookkeeping(circuit):
                if circuit.record_success(provider.name) and pacing is not None:  # its probe got through
                    pacing.ramp_up(provider.name)
        return sent
    assert last is not None
    raise last


def _paced_send(notification: Notification, provider: Provider, pacing: Pacing | None) -> Dispatched:
    permit = pacing.acquire(provider.name) if pacing is not None else None
    try:
        return handover.send(notification, provider)
    finally:
        if pacing is not None:
            pacing.release(permit)


@contextlib.contextmanager
def _bookkeeping(circuit: CircuitBreaker) -> Iterator[None]:
    """The breaker's counts are advice: a Redis outage while keeping them must not turn a send
    whose outcome is known into one that raised something else."""
    try:
        yield
    except REDIS_UNAVAILABLE as exc:
        log.warning("circuit breaker not updated (Redis unavailable): %r", exc)


def _failed(circuit: CircuitBreaker | None, provider: Provider) -> None:
    if circuit is None:
        return
    with _bookkeeping(circuit):
        if circuit.record_failure(provider.name):
            log.warning("SMS gateway %s taken out of rotation after repeated failures", provider.name)


def _pin(notification: Notification, provider_name: str) -> None:
    Notification.update(sent_by=provider_name).where(
        (Notification.id == notification.id) & (unindexed_status() == statuses.CREATED)).execute()
