"""Providers' receipts and email events, applied as the webhook receives them; the confirmation of
an Amazon SNS subscription; the simulated gateway's outboxes and their flushes.

A webhook answers 2xx only once what it was given is in the database (applied, or held until its
message is known): a provider posts a receipt again only while we refuse it, so a receipt kept
anywhere less durable (a Redis that restarts empty) would be lost for good. The receipts of the
requests that arrive at the same moment are applied together, one run per kind and provider in the
order they came (throughput.grouped: a Batcher with THROUGHPUT=fast): under load a gateway posts
hundreds a second, one per request, and a transaction each would cost more than the work.
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from itertools import groupby

import dramatiq

from config import Settings, get_settings
from models.db import open_connection
from models.outages import UNAVAILABLE
from pipeline.infrastructure import throughput
from pipeline.infrastructure.outbox import Outbox
from pipeline.infrastructure.providers.email.events import from_json
from pipeline.infrastructure.providers.email.sns import SnsVerifier
from pipeline.infrastructure.providers.errors import RetryableProviderError
from pipeline.infrastructure.providers.simulated import SimulatedSmsProvider, post_receipts
from pipeline.stages.email_events import apply_email_events
from pipeline.stages.receipts import apply_receipts
from workers.actors import Actor, actor
from workers.broker import ops_redis
from workers.enqueue import add_now, start_flush

log = logging.getLogger(__name__)
SIMULATED = SimulatedSmsProvider.name  # the email simulator shares the name, and so the outboxes

# How each kind of item is applied: (provider, items) -> number changed.
_APPLY: dict[str, Callable[[str, list[dict]], int]] = {
    "receipt": apply_receipts,
    "email_event": lambda provider, events: apply_email_events(provider, [from_json(e) for e in events]),
}
Posted = tuple[str, str, list[dict]]  # (kind, provider, items) of one webhook request


def _apply_runs(posted: Sequence[Posted]) -> None:
    # Runs of one kind and provider, in the order they came: "pending" then "delivered" lands in
    # that order.
    flat = [(kind, provider, item) for kind, provider, items in posted for item in items]
    for (kind, provider), run in groupby(flat, key=lambda each: each[:2]):
        _APPLY[kind](provider, [item for _, _, item in run])


def _apply_together(batch: list[Posted]) -> list[None | BaseException]:
    open_connection()  # this thread's own connection, replaced if the server dropped it
    try:
        _apply_runs(batch)
        return [None] * len(batch)
    except UNAVAILABLE:
        raise  # every request of the batch answers 503, and its provider posts again
    except Exception:
        if len(batch) == 1:
            raise
        # One request's receipts that break the batch must not fail the others' requests.
        log.exception("receipts of %d requests could not be applied together; applied request by request",
                      len(batch))
    outcomes: list[None | BaseException] = []
    for posted in batch:
        try:
            _apply_runs([posted])
            outcomes.append(None)
        except Exception as exc:  # that request alone fails, and its provider posts it again
            outcomes.append(exc)
    return outcomes


_applier: throughput.Grouped[Posted, None] = throughput.grouped("receipt-applier", _apply_together)


def apply_posted_receipts(provider: str, receipts: list[dict]) -> None:
    """Apply a provider's SMS receipts, committed, before the webhook answers; raises what applying
    them raised (an outage: the webhook answers 503 and the provider posts them again)."""
    _applier.submit(("receipt", provider, receipts))


def apply_posted_email_events(provider: str, events: list[dict]) -> None:
    """Apply an email provider's events (the webhook's JSON shape), as apply_posted_receipts does."""
    _applier.submit(("email_event", provider, events))


@functools.lru_cache(maxsize=1)
def sns_verifier(settings: Settings) -> SnsVerifier:
    """The process's SNS verifier (its certificate cache and connections), for these settings."""
    return SnsVerifier(settings)


# SNS keeps a subscription's confirmation valid for three days; a failed visit is tried again for
# about as long as a send is.
@actor(queue_name="callbacks", max_retries=20, min_backoff=5_000, max_backoff=600_000)
def confirm_sns_subscription(subscribe_url: str, topic_arn: str) -> None:
    if sns_verifier(get_settings()).confirm_subscription(subscribe_url):
        log.info("SNS subscription to %s confirmed", topic_arn)
    else:
        log.error("SNS refused the confirmation of the subscription to %s: resend it from the SNS console",
                  topic_arn)


@functools.cache
def simulated_outbox(kind: str) -> Outbox:
    """The simulated gateway's outboxes: "sends" (test-key notification ids) and "receipts"."""
    return Outbox(ops_redis(), f"{get_settings().queue_namespace}:simulated-{kind}:{SIMULATED}")


def post_simulated_receipts(receipts: list[dict]) -> None:
    """Post them to our webhook; one it cannot take now (it answers 503 while the database is down)
    is retried by the flush's message as Dramatiq's retries do, without a traceback per try."""
    settings = get_settings()
    try:
        post_receipts(settings.base_url, settings.provider_webhook_token, SIMULATED, receipts)
    except RetryableProviderError as error:
        raise dramatiq.Retry(str(error)) from error


def queue_simulated_receipts(receipts: list[dict]) -> None:
    """Queue live sends' receipts from the simulator, at once, in one round trip. A Redis outage raises here, not
    left to the sweeps: the caller has recorded nothing yet, so the send stays `created` for its
    message's retry or the stuck-notifications sweep, where a swallowed outage would leave it
    `sending` with no receipt ever to come. Once the receipt is queued, a lost flush message is
    the outbox sweep's."""
    add_now(simulated_outbox("receipts"), receipts, flush_simulated_receipts)


# A flush retries for about five minutes, then hands its batch back for a later flush.
FLUSH_RETRIES = {"max_retries": 10, "min_backoff": 500, "max_backoff": 60_000,
                 "on_retry_exhausted": "give_back_simulated_batch"}


# Each flush actor's outbox, by the actor's name (flush_simulated_sends is in workers/sending.py).
_OUTBOXES = {"flush_simulated_sends": lambda: simulated_outbox("sends"),
             "flush_simulated_receipts": lambda: simulated_outbox("receipts")}


def outbox_of(flush: Actor | str) -> Outbox:
    """The outbox a flush actor (or its name, as a failed message gives it) works through."""
    return _OUTBOXES[flush if isinstance(flush, str) else flush.actor_name]()


# Its name is the one give-backs already queued by earlier releases carry.
@actor(actor_name="give_back_simulated_batch", queue_name="simulated-gateway", max_retries=3)
def give_back_outbox_batch(message_data: dict, retry_info: dict) -> None:
    outbox_of(message_data["actor_name"]).give_back(message_data["args"][0])


@actor(queue_name="simulated-gateway", **FLUSH_RETRIES)
def flush_simulated_receipts(flush_id: str) -> None:
    """What a real gateway does after sends: post the receipts to our webhook over HTTP, in batches."""
    simulated_outbox("receipts").flush(flush_id, post_simulated_receipts,
                                       functools.partial(start_flush, flush_simulated_receipts))

