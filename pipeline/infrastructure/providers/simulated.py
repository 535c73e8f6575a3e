"""Simulated providers: the default when no real provider is configured, and always for test keys.

send_* hands nothing to anyone; it returns a fresh reference, as a real provider's client returns
its message id: the delivery stage calls it as it calls any provider. Two things are the
simulator's own. It reports from here: receipts() makes the receipts a gateway would post, queued in
the simulated gateway's outbox (workers/receipts.py) whose flush sends them with post_receipts() to
our own receipt webhook, the same HTTP request a real gateway makes, so status changes on a laptop
take the real path. And its sends go through together: a send that reaches no one needs no claim,
so the sends that a worker's threads hand it at the same moment take each step in one round
(Round, below).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

import requests

from models import crypto
from models.notification import Notification
from models.outages import UNAVAILABLE
from pipeline.infrastructure import outbound, throughput
from pipeline.infrastructure.providers.errors import (
    TECHNICAL_FAILURE,
    EmailMessageData,
    EmailProvider,
    FinalProviderError,
    RetryableProviderError,
    SmsMessageData,
    SmsProvider,
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


def is_simulator(providers: Sequence[SmsProvider | EmailProvider]) -> bool:
    """Whether these providers, a send's route, are the simulator alone."""
    return len(providers) == 1 and providers[0].name == SimulatedSmsProvider.name


class Sent(Protocol):
    """A provider's answer to a send, as the delivery stage keeps it."""

    @property
    def reference(self) -> str: ...


S = TypeVar("S", bound=Sent)


def receipts(sends: Sequence[tuple[Notification, Sent]]) -> list[dict[str, Any]]:
    """The receipts the simulator reports for sends it took, once they are recorded."""
    made = []
    for notification, sent in sends:
        assert notification.normalised_to is not None  # set at accept for every text and email
        made.append(simulated_receipt(sent.reference, str(notification.id), notification.normalised_to))
    return made


class Hands(Protocol):
    """What the worker lends a group's sends: where the simulator's receipts are queued."""

    @property
    def queue_receipts(self) -> Callable[[list[dict[str, Any]]], None]: ...


H = TypeVar("H", bound=Hands)
Provider = SmsProvider | EmailProvider
Sends = list[tuple[Notification, S]]


@dataclass(frozen=True)
class Steps(Generic[H, S]):
    """The delivery stage's own steps, which the simulator's round takes for its sends: their route
    (the simulator's sends are those it still routes to the simulator alone), the provider's call, the
    record (which calls `then` with the sends it moved, inside its transaction), the end of a send
    whose content no longer decrypts, and the report of ids no longer awaiting dispatch."""

    route: Callable[[Notification, H], list[Provider]]
    send: Callable[[Notification, Provider], S]
    record: Callable[[Sends[S], Callable[[Sends[S]], None]], None]
    unreadable: Callable[[str], None]
    gone: Callable[[list[str]], None]


Group = tuple[tuple[str, ...], H]
# A group's ids to send one by one (routed elsewhere), and those no longer awaiting dispatch.
Outcome = tuple[list[str], list[str]]


class Round(throughput.Grouped[Group[H], Outcome], Generic[H, S]):
    """The sends a worker's threads hand the simulator at the same moment (groups and lone sends),
    each step made once for all of them: one read, each send made, one transaction that records them
    and queues their receipts after its UPDATE, one wait per thread (docs/decisions/speed.md). A group
    that breaks the round (an id that is none) must not fail the others: then each group goes again on
    its own, and only its own error is raised in its thread; nothing was recorded (one transaction), and
    a simulated send has no effect elsewhere."""

    def __init__(self, steps: Steps[H, S]) -> None:
        super().__init__("simulate-together", self._groups)
        self.steps = steps

    def hand_in(self, notification_ids: Sequence[str], hands: H) -> list[str]:
        """A group's sends; returns the ids to send one by one instead (the route now goes elsewhere).
        Those no longer awaiting dispatch are reported here, in the thread of their own message."""
        one_by_one, gone = self.submit((tuple(notification_ids), hands))
        self.steps.gone(gone)
        return one_by_one

    def _groups(self, groups: list[Group[H]]) -> list[Outcome | BaseException]:
        try:
            return list(self._take(groups))
        except UNAVAILABLE:
            raise  # an outage: every group's thread retries as it would alone
        except Exception:
            if len(groups) == 1:
                raise
        outcomes: list[Outcome | BaseException] = []
        for group in groups:
            try:
                outcomes.extend(self._take([group]))
            except Exception as exc:
                outcomes.append(exc)
        return outcomes

    def _take(self, groups: list[Group[H]]) -> list[Outcome]:
        ids = [uuid.UUID(each) for notification_ids, _ in groups for each in notification_ids]
        found = iter(throughput.seam().awaiting_dispatch(ids))
        outcomes: list[Outcome] = []
        taken: dict[H, Sends[S]] = {}
        for notification_ids, hands in groups:
            one_by_one: list[str] = []
            gone: list[str] = []
            for notification_id in notification_ids:
                loaded = next(found)
                if loaded is None:
                    gone.append(notification_id)  # already dispatched, or no such notification
                    continue
                try:
                    notification = loaded()
                except crypto.UNREADABLE:
                    self.steps.unreadable(notification_id)
                    continue
                providers = self.steps.route(notification, hands)
                if is_simulator(providers):
                    taken.setdefault(hands, []).append((notification, self.steps.send(notification, providers[0])))
                else:
                    one_by_one.append(notification_id)
            outcomes.append((one_by_one, gone))
        for hands, sends in taken.items():
            self.steps.record(sends, _reporter(hands))
        return outcomes


def _reporter(hands: Hands) -> Callable[[Sequence[tuple[Notification, Sent]]], None]:
    """What queues the receipts of the sends a record moved, in its transaction."""
    def report(moved: Sequence[tuple[Notification, Sent]]) -> None:
        hands.queue_receipts(receipts(moved))
    return report


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
