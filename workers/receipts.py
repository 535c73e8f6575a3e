"""Actors of the receipts queue: apply providers' receipts; flush the simulated gateway's outbox."""
from __future__ import annotations

import functools
import uuid

import dramatiq

from config import get_settings
from pipeline.email_events import apply_email_events
from pipeline.outbox import Outbox
from pipeline.providers.email.events import from_json
from pipeline.providers.simulated import SimulatedSmsProvider, post_receipts
from pipeline.receipts import apply_receipts
from workers.broker import ops_redis
from workers.enqueue import left_to_the_sweeps

SIMULATED = SimulatedSmsProvider.name  # the email simulator shares the name, and so the outboxes


@dramatiq.actor(queue_name="receipts", max_retries=5, min_backoff=1000)
def process_receipts(provider: str, receipts: list[dict]) -> None:
    apply_receipts(provider, receipts)


@dramatiq.actor(queue_name="receipts", max_retries=5, min_backoff=1000)
def process_email_events(provider: str, events: list[dict]) -> None:
    apply_email_events(provider, [from_json(event) for event in events])


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
    if simulated_outbox("receipts").add(receipt):
        with left_to_the_sweeps(flush_simulated_receipts):
            flush_simulated_receipts.send(uuid.uuid4().hex)


# A flush retries for about five minutes, then hands its batch back for a later flush.
FLUSH_RETRIES = {"max_retries": 10, "min_backoff": 500, "max_backoff": 60_000,
                 "on_retry_exhausted": "give_back_simulated_batch"}


@dramatiq.actor(queue_name="simulated-gateway", max_retries=3)
def give_back_simulated_batch(message_data: dict, retry_info: dict) -> None:
    kind = "sends" if message_data["actor_name"] == "flush_simulated_sends" else "receipts"
    simulated_outbox(kind).give_back(message_data["args"][0])


@dramatiq.actor(queue_name="simulated-gateway", **FLUSH_RETRIES)
def flush_simulated_receipts(flush_id: str) -> None:
    """What a real gateway does after sends: post the receipts to our webhook over HTTP, in batches."""
    simulated_outbox("receipts").flush(flush_id, post_simulated_receipts)


@dramatiq.actor(queue_name="periodic", max_retries=0)
def sweep_simulated_outboxes() -> None:
    """Start a flush for what a lost flush message left waiting; flushes running side by side are
    safe, each batch is taken by one of them."""
    from workers.sending import flush_simulated_sends

    for kind, flush in (("sends", flush_simulated_sends), ("receipts", flush_simulated_receipts)):
        if simulated_outbox(kind).waiting():
            flush.send(uuid.uuid4().hex)
