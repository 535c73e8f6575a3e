"""Actors of the receipts queue: apply provider receipts; post the simulated provider's receipts."""
from __future__ import annotations

import dramatiq

from config import get_settings
from pipeline.receipts import apply_receipt
from workers.broker import broker  # noqa: F401  (actors bind to the configured broker)


@dramatiq.actor(queue_name="receipts", max_retries=5, min_backoff=1000)
def process_receipt(provider: str, receipt: dict) -> None:
    apply_receipt(provider, receipt)


@dramatiq.actor(queue_name="receipts", max_retries=10, min_backoff=500, max_backoff=60_000)
def simulate_receipt(provider: str, receipt: dict) -> None:
    """What a real gateway does after a send: post the receipt to our webhook over HTTP."""
    from pipeline.providers.simulated import post_receipt

    settings = get_settings()
    post_receipt(settings.base_url, settings.provider_webhook_token, provider, receipt)
