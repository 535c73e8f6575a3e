"""Actors of the receipts queue: apply providers' receipts; flush the simulated gateway's outbox.

Receipts posted to the webhook wait in a Redis outbox (pipeline/outbox.py) and are applied a batch
at a time by one flush, not a queue message each: under load a gateway posts hundreds a second, one
per request, and a message per receipt cost more than applying it (its enqueue, fetch and ack, and a
transaction of its own). The outbox keeps what a queue keeps: nothing taken is lost, a failed flush is
retried, and a lost flush message is started again by the outbox sweep.
"""
from __future__ import annotations

import functools
import logging
from itertools import groupby

import dramatiq

from config import get_settings
from models.outages import UNAVAILABLE
from pipeline.email_events import apply_email_events
from pipeline.outbox import Outbox
from pipeline.providers.email.events import from_json
from pipeline.providers.simulated import SimulatedSmsProvider, post_receipts
from pipeline.receipts import apply_receipts
from workers.broker import ops_redis
from workers.enqueue import add_now, start_flush

log = logging.getLogger(__name__)
SIMULATED = SimulatedSmsProvider.name  # the email simulator shares the name, and so the outboxes


@dramatiq.actor(queue_name="receipts", max_retries=5, min_backoff=1000)
def process_receipts(provider: str, receipts: list[dict]) -> None:
    apply_receipts(provider, receipts)


@dramatiq.actor(queue_name="receipts", max_retries=5, min_backoff=1000)
def process_email_events(provider: str, events: list[dict]) -> None:
    apply_email_events(provider, [from_json(event) for event in events])


@functools.cache
def receipts_outbox() -> Outbox:
    """Providers' SMS receipts and email events posted to the webhooks, waiting to be applied."""
    return Outbox(ops_redis(), f"{get_settings().queue_namespace}:receipts-outbox")


# What the outbox holds, by its key in an item: how a run of them is applied, and the message that
# takes one of them on its own.
_KINDS = {"receipt": process_receipts, "email_event": process_email_events}


def queue_receipts(provider: str, receipts: list[dict]) -> None:
    """Queue a provider's SMS receipts for the receipts flush. A Redis outage raises: the webhook
    then answers 503 and the provider posts them again."""
    _queue(provider, "receipt", receipts)


def queue_email_events(provider: str, events: list[dict]) -> None:
    """Queue an email provider's events (the webhook's JSON shape), as queue_receipts does receipts."""
    _queue(provider, "email_event", events)


def _queue(provider: str, kind: str, items: list[dict]) -> None:
    add_now(receipts_outbox(), [{"provider": provider, kind: item} for item in items], flush_receipts)


def _kind_and_provider(item: dict) -> tuple[str, str]:
    return ("receipt" if "receipt" in item else "email_event"), item["provider"]


def _apply_batch(items: list[dict]) -> None:
    # Runs of one kind and provider, in the order they came: "pending" then "delivered" lands in
    # that order.
    for (kind, provider), run in groupby(items, key=_kind_and_provider):
        each = [item[kind] for item in run]
        try:
            _KINDS[kind].fn(provider, each)
        except UNAVAILABLE:
            raise  # the flush is retried with its batch
        except Exception:
            # One that breaks its batch must not hold up every receipt behind it: each goes on as a
            # message of its own, with that message's retries and, in the end, the dead letters.
            log.exception("%ss from %s could not be applied as a batch; queued one by one", kind, provider)
            for one in each:
                _KINDS[kind].send(provider, [one])


@functools.cache
def simulated_outbox(kind: str) -> Outbox:
    """The simulated gateway's outboxes: "sends" (test-key notification ids) and "receipts"."""
    return Outbox(ops_redis(), f"{get_settings().queue_namespace}:simulated-{kind}:{SIMULATED}")


def post_simulated_receipts(receipts: list[dict]) -> None:
    settings = get_settings()
    post_receipts(settings.base_url, settings.provider_webhook_token, SIMULATED, receipts)


def queue_simulated_receipt(receipt: dict) -> None:
    """Queue a live send's receipt from the simulator, at once. A Redis outage raises here, not
    left to the sweeps: the caller has recorded nothing yet, so the send stays `created` for its
    message's retry or the stuck-notifications sweep, where a swallowed outage would leave it
    `sending` with no receipt ever to come. Once the receipt is queued, a lost flush message is
    the outbox sweep's."""
    add_now(simulated_outbox("receipts"), [receipt], flush_simulated_receipts)


# A flush retries for about five minutes, then hands its batch back for a later flush.
FLUSH_RETRIES = {"max_retries": 10, "min_backoff": 500, "max_backoff": 60_000,
                 "on_retry_exhausted": "give_back_simulated_batch"}


# Each flush actor's outbox, by the actor's name (flush_simulated_sends is in workers/sending.py).
_OUTBOXES = {"flush_receipts": receipts_outbox, "flush_simulated_sends": lambda: simulated_outbox("sends"),
             "flush_simulated_receipts": lambda: simulated_outbox("receipts")}


def outbox_of(flush: dramatiq.Actor | str) -> Outbox:
    """The outbox a flush actor (or its name, as a failed message gives it) works through."""
    return _OUTBOXES[flush if isinstance(flush, str) else flush.actor_name]()


# Named as before it served the receipts outbox too: a give-back queued under that name by an older
# release still finds its actor.
@dramatiq.actor(actor_name="give_back_simulated_batch", queue_name="simulated-gateway", max_retries=3)
def give_back_outbox_batch(message_data: dict, retry_info: dict) -> None:
    outbox_of(message_data["actor_name"]).give_back(message_data["args"][0])


@dramatiq.actor(queue_name="receipts", **FLUSH_RETRIES)
def flush_receipts(flush_id: str) -> None:
    receipts_outbox().flush(flush_id, _apply_batch, functools.partial(start_flush, flush_receipts))


@dramatiq.actor(queue_name="simulated-gateway", **FLUSH_RETRIES)
def flush_simulated_receipts(flush_id: str) -> None:
    """What a real gateway does after sends: post the receipts to our webhook over HTTP, in batches."""
    simulated_outbox("receipts").flush(flush_id, post_simulated_receipts,
                                       functools.partial(start_flush, flush_simulated_receipts))

