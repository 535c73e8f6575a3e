"""The statuses a notification moves through, the one table of which moves are allowed, and their
public names. The moves themselves are made by pipeline/stages/status_changes.py."""
from __future__ import annotations

CREATED = "created"
SENDING = "sending"
PENDING = "pending"
SENT = "sent"
DELIVERED = "delivered"
PERMANENT_FAILURE = "permanent-failure"
TEMPORARY_FAILURE = "temporary-failure"
TECHNICAL_FAILURE = "technical-failure"
PENDING_VIRUS_CHECK = "pending-virus-check"
VIRUS_SCAN_FAILED = "virus-scan-failed"
VALIDATION_FAILED = "validation-failed"
CANCELLED = "cancelled"
RETURNED_LETTER = "returned-letter"

# The failures' index (models.notification.FAILED_STATUSES) holds these: the "failed" filter reads it.
FAILURES = (PERMANENT_FAILURE, TEMPORARY_FAILURE, TECHNICAL_FAILURE, VIRUS_SCAN_FAILED, VALIDATION_FAILED)
FINAL = frozenset({DELIVERED, SENT, CANCELLED, RETURNED_LETTER, *FAILURES})
COMPLETED = frozenset({DELIVERED, CANCELLED, RETURNED_LETTER, *FAILURES})

# new status -> statuses it may be reached from
ALLOWED: dict[str, frozenset[str]] = {
    SENDING: frozenset({CREATED}),
    SENT: frozenset({CREATED, SENDING}),
    PENDING: frozenset({SENDING}),
    DELIVERED: frozenset({SENDING, PENDING, SENT}),
    # From delivered: a hard bounce reported after an SMTP relay's acceptance was counted as delivery
    # (SMTP_DELIVERED_ON_ACCEPT); the bounce is the later and better-informed report. A late temporary
    # failure after delivery stays refused, and logged: the two outcomes exclude each other.
    PERMANENT_FAILURE: frozenset({CREATED, SENDING, PENDING, SENT, DELIVERED}),
    TEMPORARY_FAILURE: frozenset({SENDING, PENDING, SENT}),
    TECHNICAL_FAILURE: frozenset({CREATED, SENDING, PENDING_VIRUS_CHECK}),
    CREATED: frozenset({PENDING_VIRUS_CHECK}),  # a precompiled letter that passed scan and checks
    VIRUS_SCAN_FAILED: frozenset({PENDING_VIRUS_CHECK}),
    VALIDATION_FAILED: frozenset({CREATED, PENDING_VIRUS_CHECK}),
    CANCELLED: frozenset({CREATED, PENDING_VIRUS_CHECK}),
    RETURNED_LETTER: frozenset({SENDING, DELIVERED}),
}

# Every status a notification can be in: counting rows by (channel, status) ranges of an index.
EVERY_STATUS = tuple(sorted({*ALLOWED, *(status for before in ALLOWED.values() for status in before)}))


def _before(status: str) -> frozenset[str]:
    """Every status a notification may have had before `status`: the table's moves, followed back."""
    found: set[str] = set()
    waiting = list(ALLOWED.get(status, ()))
    while waiting:
        earlier = waiting.pop()
        if earlier not in found:
            found.add(earlier)
            waiting.extend(ALLOWED.get(earlier, ()))
    return frozenset(found)


EARLIER = {status: _before(status) for status in EVERY_STATUS}


def out_of_order(current: str, wanted: str) -> bool:
    """Whether a refused move to `wanted` arrives out of order: the row is already at `current`, which the
    notification may reach through `wanted` (a receipt's `delivered` recorded before the dispatch's
    `sending`). Not out of order, and worth an operator's look: a move between outcomes that exclude each other
    (`technical-failure` to `delivered`) or to what no longer applies (`cancelled` to `sending`)."""
    return wanted in EARLIER.get(current, frozenset())

# Public names of the letter statuses over the internal ones (wire contract).
LETTER_PUBLIC = {CREATED: "accepted", SENDING: "accepted", DELIVERED: "received"}
# Status filter values of the spec and the internal statuses each one covers.
FILTER_VALUES: dict[str, tuple[str, ...]] = {
    "cancelled": (CANCELLED,),
    "created": (CREATED,),
    "sending": (SENDING,),
    "sent": (SENT,),
    "delivered": (DELIVERED,),
    "pending": (PENDING,),
    "failed": FAILURES,
    "technical-failure": (TECHNICAL_FAILURE,),
    "temporary-failure": (TEMPORARY_FAILURE,),
    "permanent-failure": (PERMANENT_FAILURE,),
    "pending-virus-check": (PENDING_VIRUS_CHECK,),
    "validation-failed": (VALIDATION_FAILED,),
    "virus-scan-failed": (VIRUS_SCAN_FAILED,),
    "returned-letter": (RETURNED_LETTER,),
    "accepted": (CREATED, SENDING),
    "received": (DELIVERED,),
}


def public_status(notification_type: str, status: str) -> str:
    if notification_type == "letter":
        return LETTER_PUBLIC.get(status, status)
    return status
