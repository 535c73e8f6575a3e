"""The seam for throughput (docs/architecture.md#speed-behind-one-seam): the plain operations rules and
stages call to record notifications, count against the rate and daily limits, change statuses, read
and claim the sends awaiting dispatch, read and fold the held counts, and hand work in with other
threads' (grouped()), whatever makes them fast. Outside it and the migrations no code writes SQL.

The interface, Throughput, says what each operation means, once. Two implementations of it, one
chosen by the THROUGHPUT setting and installed by each process's factory (workers.wire()), reached
through seam():
- `reference` (reference.py): the peewee ORM and a Redis round trip of each request's own; what
  the tests also run on.
- `fast` (fast/): requests of one moment share a round trip (group commit), INSERTs by cached SQL,
  rate-limit tokens leased per process. The default: what the benchmarks measure.
Where speed does not matter, both are one (shared.py).
"""
from __future__ import annotations

import datetime
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from models.held_count import HeldKey
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
        return seam().submit_all(self, items)


class Throughput(Protocol):
    """The operations, each one's contract written here once; reference.py and fast/ implement them
    alike (tests/test_throughput_conformance.py runs both through the same cases). Reached through
    seam(), the implementation this process's wiring installed."""

    def record(self, rows: list[Notification], enqueue: Enqueue, daily: tuple[DailyCount, ...] = (),
               with_row: WithRow | None = None) -> None:
        """The one way a new notification is recorded: count each row against today's limits in daily
        (pipeline.infrastructure.daily_limits.daily_counts; raising TooManyRequestsError, counting
        nothing, when any would be exceeded), INSERT the rows and what with_row saves of each in one
        transaction, and hand the rows written to enqueue (an Enqueue starts their work once that
        transaction commits; it may get them in one call with the rows other requests recorded with
        it at the same moment). Inside a transaction of the caller the rows join it; outside one
        they are committed before this returns. Raises what any step raised, having given back the
        counts of rows not written."""

    def check_rate_limit(self, service_id: object, key_type: str, limit: int) -> None:
        """Count a request against its service's limit per key type, in fixed windows of
        RATE_WINDOW_SECONDS shared by every web process; raises RateLimitError past the limit."""

    def settings_generation(self) -> bytes | None:
        """The settings generation (models.cache) Redis holds: None before the first one."""

    # Status changes: pipeline.domain.statuses decides which are allowed (`allowed`: the statuses a row
    # may move from) and what follows one; these only write them, each a compare-and-set on the status.

    def change_status(self, notification_id: Any, allowed: frozenset[str], values: dict[str, Any]) -> str | None:
        """UPDATE the notification to values (field name to value) if its status is one of allowed:
        its type if it moved, else None (not found, or in another status)."""

    def change_statuses(self, notification_ids: list[Any], allowed: frozenset[str],
                        values: dict[str, Any]) -> list[tuple[Any, str]]:
        """UPDATE every one of the notifications whose status is one of allowed to values (a value may
        be another column of the row, copied over): the id (a uuid.UUID) and type of each moved."""

    def change_each_status(self, allowed: frozenset[str], shared: dict[str, Any],
                           changes: Sequence[tuple[Any, Mapping[str, Any]]]) -> list[tuple[Any, str]]:
        """change_statuses() with values of each notification's own in changes (the same fields for
        all, an id at most once, at least one change) besides the shared ones, in one transaction:
        the id and type of each moved."""

    # The sends awaiting dispatch: `created` and not claimed (dispatch_started_at empty).

    def awaiting_dispatch(self, notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
        """Each notification while it awaits dispatch, else None, in the order asked. An id asked for
        twice (its message delivered twice at once) is found once: one send goes on. Content that no
        longer decrypts raises models.crypto.UNREADABLE when its Loaded is called, not here."""

    def claim_awaiting(self, notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
        """awaiting_dispatch(), each notification found claimed now (dispatch_started_at) in the same
        statement, for live sends bound for a real provider (a test key's is never claimed: None)."""

    def claim(self, notification_id: Any, at: datetime.datetime) -> bool:
        """Claim a notification that awaits dispatch (dispatch_started_at = at): whether this call did."""

    def release(self, notification_id: Any, retry_at: datetime.datetime | None) -> None:
        """Give a claim back (dispatch_started_at emptied, whatever the status) and set retry_at: when
        the send's delayed message tries again (None: none waits), which the sweeps wait for."""

    def any_held_receipt(self, provider: str, provider_id: str) -> bool:
        """Whether a receipt that came before its send's answer is held for this provider's id."""

    # The held counts (models/held_count.py, pipeline/stages/held_counts.py).

    def held_counts(self, service_id: object, start: datetime.date, end: datetime.date,
                    key_types: Sequence[str]) -> Counter[HeldKey]:
        """The service's held notifications created from day start up to (not including) day end, of
        the key types, per day and kind, kinds of none left out: the counts plus the journal not yet
        folded, read in one snapshot (a fold committing meanwhile neither hides nor doubles a row)."""

    def fold_held_counts(self) -> int:
        """Add the journal into the counts and empty it: the journal rows folded (0 when another fold
        is under way, which this one does not wait for). A kind that comes to zero is deleted; journal
        rows of a service deleted meanwhile are dropped."""

    def submit_all(self, group: Grouped[T, R], items: Sequence[T]) -> list[R]:
        """The outcomes of group.process for items, in order, the first exception among them raised:
        with `fast` in one call with the items other threads hand in at the same moment (group commit,
        fast/batching.py), with `reference` in a call of their own. Called by Grouped.submit_all()."""


def rate_limit_refusal(key_type: str, limit: int) -> RateLimitError:
    return RateLimitError(Refusal(
        "rate_limit_exceeded",
        f"Exceeded rate limit for key type {key_type} of {limit} requests per {RATE_WINDOW_SECONDS} seconds",
        {"key_type": key_type, "limit": limit, "seconds": RATE_WINDOW_SECONDS}))


def setting_problem(name: str) -> str | None:
    """What is wrong with THROUGHPUT=name, after the setting's name; None: usable."""
    return None if name in IMPLEMENTATIONS else f"must be one of {', '.join(IMPLEMENTATIONS)}, not {name!r}"


def build(name: str) -> Throughput:
    """A new implementation of the name THROUGHPUT gives (setting_problem() refuses any other at start-up)."""
    if name == "reference":
        from pipeline.infrastructure.throughput.reference import Reference
        return Reference()
    from pipeline.infrastructure.throughput.fast import Fast
    return Fast()


NOT_WIRED = "no throughput implementation yet: this process's factory calls workers.wire() to install it"
_installed: Throughput | None = None


def install(implementation: Throughput) -> None:
    """What seam() gives from now on in this process: its factory's choice (workers.wire())."""
    global _installed
    _installed = implementation


def seam() -> Throughput:
    """The implementation this process's factory installed; RuntimeError(NOT_WIRED) before it did."""
    if _installed is None:
        raise RuntimeError(NOT_WIRED)
    return _installed


def grouped(name: str, process: Callable[[list[T]], Sequence[R | BaseException]], *,
            linger_seconds: float = 0.0) -> Grouped[T, R]:
    """See Grouped. Building one builds nothing else (it may be made at import): the implementation
    is the one installed when its items are handed in."""
    return Grouped(name, process, linger_seconds)
