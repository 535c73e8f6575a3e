"""The seam for throughput (docs/architecture.md#speed-behind-one-seam): the plain operations rules and stages call to
record notifications, count against the rate and daily limits, change statuses, read and claim the
sends awaiting dispatch, and hand work in with other threads' (grouped()), whatever makes them fast.

Two implementations of one interface, chosen by the THROUGHPUT setting:
- `reference` (reference.py): the peewee ORM and a Redis round trip of each request's own; what
  the operations mean, and what the tests also run on.
- `fast` (fast/): requests of one moment share a round trip (group commit), INSERTs by cached SQL,
  rate-limit tokens leased per process. The default: what the benchmarks measure.
"""
from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from config import get_settings
from models.notification import Notification
from pipeline.domain.errors import RateLimitError, Refusal
from pipeline.infrastructure.daily_limits import DailyCount

IMPLEMENTATIONS = ("fast", "reference")
RATE_WINDOW_SECONDS = 60

# Starts the work of new notifications, once the transaction that recorded them commits (at once
# outside one): workers.sending.enqueue_deliveries, workers.letters.enqueue_letter_pdf, ...
Enqueue = Callable[[list[Notification]], None]
# What commits with a notification's row, in its transaction (a send's prepared files).
WithRow = Callable[[Notification], None]
# A notification read for its send, made a model when called: content that no longer decrypts
# (models.crypto.UNREADABLE) fails only the send it belongs to, not the others read with it.
Loaded = Callable[[], Notification]

T = TypeVar("T")
R = TypeVar("R")


@dataclass(eq=False)
class Grouped(Generic[T, R]):
    """Work that threads hand in at the same moment: process(items) gives one outcome per item, in
    order (a result, or an exception that the thread which handed that item in raises). With
    THROUGHPUT=fast the items of every thread waiting share one call of process (group commit:
    fast/batching.py), a round waiting up to linger_seconds for company under load; with
    `reference` each thread's items are a call of their own."""

    name: str
    process: Callable[[list[T]], Sequence[R | BaseException]]
    linger_seconds: float = 0.0

    def submit(self, item: T) -> R:
        return self.submit_all((item,))[0]

    def submit_all(self, items: Sequence[T]) -> list[R]:
        """Outcomes of items handed in together, in order; the first exception among them raised."""
        return implementation().submit_all(self, items)


class Throughput(Protocol):
    def record(self, rows: list[Notification], enqueue: Enqueue, daily: tuple[DailyCount, ...] = (),
               with_row: WithRow | None = None) -> None:
        """See record()."""

    def check_rate_limit(self, service_id: object, key_type: str, limit: int) -> None:
        """See check_rate_limit()."""

    def settings_generation(self) -> bytes | None:
        """See settings_generation()."""

    def change_status(self, notification_id: Any, allowed: frozenset[str], values: dict[str, Any]) -> str | None:
        """See change_status()."""

    def change_statuses(self, notification_ids: list[Any], allowed: frozenset[str],
                        values: dict[str, Any]) -> list[tuple[Any, str]]:
        """See change_statuses()."""

    def change_each_status(self, allowed: frozenset[str], shared: dict[str, Any],
                           changes: Sequence[tuple[Any, Mapping[str, Any]]]) -> list[tuple[Any, str]]:
        """See change_each_status()."""

    def awaiting_dispatch(self, notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
        """See awaiting_dispatch()."""

    def claim_awaiting(self, notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
        """See claim_awaiting()."""

    def claim(self, notification_id: Any, at: datetime.datetime) -> bool:
        """See claim()."""

    def any_held_receipt(self, provider: str, provider_id: str) -> bool:
        """See any_held_receipt()."""

    def submit_all(self, group: Grouped[T, R], items: Sequence[T]) -> list[R]:
        """See Grouped.submit_all()."""


def rate_limit_refusal(key_type: str, limit: int) -> RateLimitError:
    return RateLimitError(Refusal(
        "rate_limit_exceeded",
        f"Exceeded rate limit for key type {key_type} of {limit} requests per {RATE_WINDOW_SECONDS} seconds",
        {"key_type": key_type, "limit": limit, "seconds": RATE_WINDOW_SECONDS}))


def setting_problem(name: str) -> str | None:
    """What is wrong with THROUGHPUT=name, after the setting's name; None: usable."""
    return None if name in IMPLEMENTATIONS else f"must be one of {', '.join(IMPLEMENTATIONS)}, not {name!r}"


_chosen: dict[str, Throughput] = {}


def implementation() -> Throughput:
    """The implementation the THROUGHPUT setting names (refused at start-up when it names none)."""
    name = get_settings().throughput
    chosen = _chosen.get(name)
    if chosen is None:
        if name == "reference":
            from pipeline.infrastructure.throughput.reference import Reference
            chosen = Reference()
        else:
            from pipeline.infrastructure.throughput.fast import Fast
            chosen = Fast()
        chosen = _chosen.setdefault(name, chosen)
    return chosen


def record(rows: list[Notification], enqueue: Enqueue, daily: tuple[DailyCount, ...] = (),
           with_row: WithRow | None = None) -> None:
    """The one way a new notification is recorded: count each row against today's limits in daily
    (pipeline.infrastructure.daily_limits.daily_counts; raising TooManyRequestsError, counting nothing, when any
    would be exceeded), INSERT the rows and what with_row saves of each in one transaction, and
    enqueue(rows) once it has committed. Inside a transaction of the caller the rows join it (and
    enqueue runs after its commit); outside one the rows are committed before this returns.
    Raises what any step raised, having given back the counts of rows not written."""
    implementation().record(rows, enqueue, daily, with_row)


def check_rate_limit(service_id: object, key_type: str, limit: int) -> None:
    """Count a request against its service's limit per key type, in fixed windows of
    RATE_WINDOW_SECONDS shared by every web process; raises RateLimitError past the limit."""
    implementation().check_rate_limit(service_id, key_type, limit)


def settings_generation() -> bytes | None:
    """The settings generation (models.cache) Redis holds."""
    return implementation().settings_generation()


# Status changes: pipeline.domain.statuses decides which are allowed (`allowed`: the statuses a row may move
# from) and what follows one; these only write them, each a compare-and-set on the row's status.

def change_status(notification_id: Any, allowed: frozenset[str], values: dict[str, Any]) -> str | None:
    """UPDATE the notification to values if its status is one of allowed: its type if it moved, else None."""
    return implementation().change_status(notification_id, allowed, values)


def change_statuses(notification_ids: list[Any], allowed: frozenset[str],
                    values: dict[str, Any]) -> list[tuple[Any, str]]:
    """UPDATE every one of the notifications whose status is one of allowed to values (a value may be
    another column of the row, copied over): the id and type of each moved."""
    return implementation().change_statuses(notification_ids, allowed, values)


def change_each_status(allowed: frozenset[str], shared: dict[str, Any],
                       changes: Sequence[tuple[Any, Mapping[str, Any]]]) -> list[tuple[Any, str]]:
    """change_statuses() with values of each notification's own (the same fields for all, an id at
    most once) besides the shared ones: the id and type of each moved."""
    return implementation().change_each_status(allowed, shared, changes)


# The sends awaiting dispatch: `created` and not claimed (dispatch_started_at empty).

def awaiting_dispatch(notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
    """Each notification while it awaits dispatch, else None. An id asked for twice (its message
    delivered twice at once) is found once: one send goes on."""
    return implementation().awaiting_dispatch(notification_ids)


def claim_awaiting(notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
    """awaiting_dispatch(), each notification found claimed now (dispatch_started_at) in the same
    statement, for live sends bound for a real provider (a test key's is never claimed: None)."""
    return implementation().claim_awaiting(notification_ids)


def claim(notification_id: Any, at: datetime.datetime) -> bool:
    """Claim a notification that awaits dispatch (dispatch_started_at = at): whether this call did."""
    return implementation().claim(notification_id, at)


def any_held_receipt(provider: str, provider_id: str) -> bool:
    """Whether a receipt that came before its send's answer is held for this provider's id."""
    return implementation().any_held_receipt(provider, provider_id)


def grouped(name: str, process: Callable[[list[T]], Sequence[R | BaseException]], *,
            linger_seconds: float = 0.0) -> Grouped[T, R]:
    """See Grouped. Building one builds nothing else: the implementation is chosen per call."""
    return Grouped(name, process, linger_seconds)

