"""Actors of the receipts queue: apply providers' receipts; flush the simulated gateway's outbox."""
from __future__ import annotations

import functools
import uuid

import dramatiq

from config import get_settings
from pipeline.providers.simulated import SimulatedSmsProvider, post_receipts
from pipeline.providers.simulated_outbox import ReceiptOutbox
from pipeline.receipts import apply_receipts
from workers.broker import broker


@dramatiq.actor(queue_name="receipts", max_retries=5, min_backoff=1000)
def process_receipts(provider: str, receipts: list[dict]) -> None:
    apply_receipts(provider, receipts)


@functools.cache
def simulated_outbox(provider: str) -> ReceiptOutbox:
    return ReceiptOutbox(broker.client, get_settings().queue_namespace, provider)


def queue_simulated_receipt(provider: str, receipt: dict) -> None:
    if simulated_outbox(provider).add(receipt):
        flush_simulated_receipts.send(provider, uuid.uuid4().hex)


@dramatiq.actor(queue_name="receipts", max_retries=10, min_backoff=500, max_backoff=60_000)
def flush_simulated_receipts(provider: str, flush_id: str) -> None:
    """What a real gateway does after sends: post the receipts to our webhook over HTTP, in batches."""
    settings = get_settings()
    simulated_outbox(provider).flush(
        flush_id, lambda batch: post_receipts(settings.base_url, settings.provider_webhook_token, provider, batch))


@dramatiq.actor(queue_name="periodic", max_retries=0)
def sweep_simulated_receipts() -> None:
    """Start a flush for receipts left waiting by a flush message that was lost; flushes running
    side by side are safe, each batch is taken by one of them."""
    provider = SimulatedSmsProvider.name  # the email simulator shares the name, and so the outbox
    if simulated_outbox(provider).waiting():
        flush_simulated_receipts.send(provider, uuid.uuid4().hex)
