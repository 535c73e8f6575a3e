"""Simulated providers: the default when no real provider is configured, and always for test keys.

send_* hands nothing to anyone; it returns a fresh reference. The worker then builds a receipt with
simulated_receipt() and queues it in the simulated gateway's outbox (simulated_outbox.py), whose
flush sends batches with post_receipts() to our own receipt webhook, the same HTTP request a real
gateway makes, so status changes on a laptop take the real path.

The outcome depends on the recipient, like GOV.UK Notify's test numbers and addresses:
    phone number ending 7700900003, or an address starting "temp-fail@"  -> "expired"  (temporary-failure)
    phone number ending 7700900002, or an address starting "perm-fail@"  -> "undeliverable" (permanent-failure)
    anyone else                                                          -> "delivered"
"""
from __future__ import annotations

import os
import random
import threading
import uuid
from datetime import UTC, datetime
from typing import Any

import requests

from pipeline.infrastructure import outbound
from pipeline.infrastructure.providers.errors import (
    TECHNICAL_FAILURE,
    EmailMessageData,
    FinalProviderError,
    RetryableProviderError,
    SmsMessageData,
)


def simulated_outcome(recipient: str) -> str:
    """The gateway state the simulator reports for this recipient (see the module docstring)."""
    address = recipient.strip().lower()
    if "@" in address:
        if address.startswith("temp-fail@"):
            return "expired"
        if address.startswith("perm-fail@"):
            return "undeliverable"
        return "delivered"
    digits = "".join(ch for ch in address if ch.isdigit())  # "+44 7700 900003" and "447700900003" alike
    if digits.endswith("7700900003"):
        return "expired"
    if digits.endswith("7700900002"):
        return "undeliverable"
    return "delivered"


def simulated_receipt(provider_reference: str, notification_id: str, recipient: str) -> dict[str, Any]:
    """The receipt body a gateway would post for this message (format: sms/receipts.py)."""
    return {
        "id": provider_reference,
        "reference": notification_id,
        "status": simulated_outcome(recipient),
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    }


class SimulatedSmsProvider:
    name = "simulated"
    deduplicates = True  # it hands nothing to anyone

    @staticmethod
    def new_reference() -> str:
        # Unique, not secret: drawn without the system call uuid4() makes for every send.
        return f"sim-{uuid.UUID(int=random.getrandbits(128), version=4)}"

    @staticmethod
    def reference_for(notification_id: object) -> str:
        """The simulator's message id for a send recorded a batch at a time, where no reference
        was stored: derived from ours, so a repeated receipt carries the same one."""
        return f"sim-{notification_id}"

    def send_sms(self, message: SmsMessageData) -> str:
        return self.new_reference()


class SimulatedEmailProvider:
    name = SimulatedSmsProvider.name
    deduplicates = True

    def send_email(self, message: EmailMessageData) -> str:
        return SimulatedSmsProvider.new_reference()


_local = threading.local()


def post_receipts(base_url: str, token: str, provider_name: str, receipts: list[dict[str, Any]], *,
                  timeout: float = 10) -> None:
    """POST a batch of delivery receipts (a JSON array) to our own webhook, as a gateway would.
    `timeout` in seconds.

    Connection errors, timeouts and 5xx raise RetryableProviderError. A 4xx means the webhook
    will never take this receipt (wrong token, unknown provider): FinalProviderError.
    """
    url = f"{base_url.rstrip('/')}/providers/{provider_name}/delivery-receipts"
    # A kept-alive session per thread, a worker posting batch after batch; never
    # one inherited across a fork, whose socket the parent may still be using.
    session = getattr(_local, "session", None)
    if session is None or _local.pid != os.getpid():
        session = _local.session = outbound.session(checked=False)
        _local.pid = os.getpid()
    try:
        response = session.post(url, json=receipts, headers={"Authorization": f"Bearer {token}"}, timeout=timeout)
    except (requests.Timeout, requests.ConnectionError) as error:
        raise RetryableProviderError(f"receipt webhook unreachable: {error!r}") from error
    if response.status_code >= 500 or response.status_code == 429:
        raise RetryableProviderError(f"receipt webhook answered {response.status_code}")
    if response.status_code >= 400:
        raise FinalProviderError(TECHNICAL_FAILURE,
                                 f"receipt webhook answered {response.status_code}: {response.text[:200]}")
