"""Read queries of the v2 API: one notification, and keyset pages of notifications and received texts.

Pages follow the total order (created_at DESC, id DESC). A cursor is the id of the last row a client
saw; the next page holds the rows strictly after it in that order, compared as the row value
(created_at, id) so rows sharing a timestamp are neither skipped nor repeated. The comparison and the
equality filters match the indexes (service, key_type, created_at, id) on notifications and
(service, created_at, id) on received texts, so a page is an index range scan read backwards, never
a sort of the service's rows. A status filter reads one range per (channel, status) of the index
(service, key_type, notification_type, status, created_at, id), every failure at once one range per
channel of the failed rows' index, a channel filter alone one range per channel of the index (service,
key_type, notification_type, created_at, id); the ranges are merged in order.
"""
from __future__ import annotations

import datetime
import functools
import operator
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import peewee

from models.db import utcnow
from models.notification import FAILED_STATUSES, Notification, ReceivedText
from models.service import CHANNELS, Service

PAGE_SIZE = 250
RECEIVED_TEXT_DAYS = 7  # the spec keeps received texts readable for 7 days whatever the service's retention


@dataclass(frozen=True)
class NotificationFilters:
    # Internal statuses, already expanded from the public filter names; none: every status.
    statuses: tuple[str, ...] = ()
    letter_statuses: tuple[str, ...] = ()  # internal statuses that match letters only (public accepted/received)
    notification_types: tuple[str, ...] = ()
    reference: str | None = None
    include_jobs: bool = False  # the rows of bulk jobs are left out unless asked for, as in Notify


def retention_cutoff(service: Service, channel: str, now: datetime.datetime | None = None) -> datetime.datetime:
    """The oldest created_at still readable for this channel of the service."""
    return (now or utcnow()) - datetime.timedelta(days=service.retention_days(channel))


def find_notification(service: Service, notification_id: uuid.UUID,
                      now: datetime.datetime | None = None) -> Notification | None:
    """The service's notification with this id, whatever its key type, when inside retention."""
    found = Notification.get_or_none((Notification.id == notification_id) & (Notification.service == service))
    if found is None or found.created_at < retention_cutoff(service, found.notification_type, now):
        return None
    return found


# The lists paged newest first by (created_at, id).
Paged = TypeVar("Paged", Notification, ReceivedText)


def _before(model: type[Paged], created_at: datetime.datetime, row_id: uuid.UUID) -> peewee.Expression:
    # The values go through the fields' own conversion (hex UUIDs on SQLite, uuid on PostgreSQL),
    # because a row value bypasses the converter peewee applies to a plain field comparison.
    return peewee.Tuple(model.created_at, model.id) < peewee.Tuple(
        model.created_at.db_value(created_at), model.id.db_value(row_id))


def _retention(service: Service, now: datetime.datetime) -> peewee.Expression:
    cutoffs = {channel: retention_cutoff(service, channel, now) for channel in CHANNELS}
    # The oldest cutoff bounds the index range; per-channel cutoffs, when they differ, filter within it.
    condition = Notification.created_at >= min(cutoffs.values())
    if len(set(cutoffs.values())) > 1:
        condition &= functools.reduce(operator.or_, [
            (Notification.notification_type == channel) & (Notification.created_at >= cutoff)
            for channel, cutoff in cutoffs.items()
        ])
    return condition


def _kinds(filters: NotificationFilters) -> list[tuple[str, tuple[str, ...]]] | None:
    """The ranges a status or channel filter reads, each a channel and its statuses: one status (a range
    of the kind index), every failure at once (the failures' index) or none, every status (the channel
    index); None without either filter."""
    if not (filters.statuses or filters.letter_statuses):
        return [(channel, ()) for channel in filters.notification_types] or None
    channels = filters.notification_types or CHANNELS
    groups: list[tuple[str, ...]] = [(status,) for status in filters.statuses if status not in FAILED_STATUSES]
    if set(FAILED_STATUSES) <= set(filters.statuses):
        groups.append(FAILED_STATUSES)
    else:
        groups += [(status,) for status in filters.statuses if status in FAILED_STATUSES]
    pairs = [(channel, group) for channel in channels for group in groups]
    if "letter" in channels:
        pairs += [("letter", (status,)) for status in filters.letter_statuses]
    return list(dict.fromkeys(pairs))


def _statuses(group: tuple[str, ...]) -> list[peewee.Expression]:
    if len(group) == 1:
        return [Notification.status == group[0]]
    # Every failure: stated as the failures' index states it, so that PostgreSQL sees the index applies.
    return [Notification.status.in_(group)] if group else []


def notification_parts(service: Service, key_type: str, filters: NotificationFilters,
                       older_than: uuid.UUID | None = None, *, limit: int = PAGE_SIZE,
                       now: datetime.datetime | None = None,
                       also: Sequence[peewee.Expression] = ()) -> list[peewee.Select] | None:
    """The page's queries, each one index range read newest first, to be merged (merged()); None when
    the cursor is unknown (the page is then empty). `also`: further conditions on every part.

    Without a status or channel filter, or with a reference, one query: the list index or the
    reference's. With a status filter, a query per (channel, status) on the (service, key_type,
    notification_type, status, created_at, id) index: a rare status is then a short range rather than a
    filter over every newer row, and PostgreSQL merges the parts in order, reading of each only what the
    page takes. Every failure status at once (the "failed" filter): a query per channel on the index of
    failed rows; a channel filter alone: a query per channel on the (service, key_type,
    notification_type, created_at, id) index. PostgreSQL's planning of a merge grows faster than its
    parts (26 took longer to plan than to read), so these read a few ranges rather than one per status."""
    now = now or utcnow()
    conditions = [Notification.service == service, Notification.key_type == key_type, *also]
    if older_than is not None:
        # Only the caller's own notifications serve as cursors: another service's id is unknown here.
        cursor = (Notification.select(Notification.created_at, Notification.id)
                  .where((Notification.id == older_than) & (Notification.service == service)).first())
        if cursor is None:
            return None
        conditions.append(_before(Notification, cursor.created_at, cursor.id))
    if not filters.include_jobs:
        conditions.append(Notification.job_id.is_null())
    kinds = _kinds(filters)
    if kinds is None or filters.reference is not None:
        return [_newest_first(_single(service, filters, now, conditions), limit)]
    return [_newest_first([*conditions, Notification.notification_type == channel, *_statuses(group),
                           Notification.created_at >= retention_cutoff(service, channel, now)], limit)
            for channel, group in kinds]


def _single(service: Service, filters: NotificationFilters, now: datetime.datetime,
            conditions: list[peewee.Expression]) -> list[peewee.Expression]:
    conditions = [*conditions, _retention(service, now)]
    status_conditions = []
    if filters.statuses:
        status_conditions.append(Notification.status.in_(filters.statuses))
    if filters.letter_statuses:
        status_conditions.append((Notification.notification_type == "letter")
                                 & Notification.status.in_(filters.letter_statuses))
    if status_conditions:
        conditions.append(functools.reduce(operator.or_, status_conditions))
    if filters.notification_types:
        conditions.append(Notification.notification_type.in_(filters.notification_types))
    if filters.reference is not None:
        conditions.append(Notification.reference == filters.reference)
    return conditions


def _newest_first(conditions: list[peewee.Expression], limit: int) -> peewee.Select:
    return (Notification.select().where(*conditions)
            .order_by(Notification.created_at.desc(), Notification.id.desc()).limit(limit))


def merged(parts: Sequence[peewee.Select], limit: int) -> peewee.SelectBase:
    """The parts' rows newest first, a page of them: each part is read in the page's order, so only
    pages are merged, never the service's rows sorted."""
    if len(parts) == 1:
        return parts[0]
    union = functools.reduce(operator.add, parts)  # UNION ALL
    return union.order_by(Notification.created_at.desc(), Notification.id.desc()).limit(limit)


def notifications_page_query(service: Service, key_type: str, filters: NotificationFilters,
                             older_than: uuid.UUID | None = None, *, limit: int = PAGE_SIZE,
                             now: datetime.datetime | None = None) -> peewee.SelectBase | None:
    """The page's query, or None when the cursor is unknown (the page is then empty)."""
    parts = notification_parts(service, key_type, filters, older_than, limit=limit, now=now)
    return None if parts is None else merged(parts, limit)


def notifications_page(service: Service, key_type: str, filters: NotificationFilters,
                       older_than: uuid.UUID | None = None, *, limit: int = PAGE_SIZE) -> list[Notification]:
    query = notifications_page_query(service, key_type, filters, older_than, limit=limit)
    return list(query) if query is not None else []


def received_texts_page_query(service: Service, older_than: uuid.UUID | None = None, *, limit: int = PAGE_SIZE,
                              now: datetime.datetime | None = None) -> peewee.Select | None:
    """The page's query, or None when the cursor is unknown or older than 7 days (an empty page)."""
    cutoff = (now or utcnow()) - datetime.timedelta(days=RECEIVED_TEXT_DAYS)
    conditions = [ReceivedText.service == service, ReceivedText.created_at >= cutoff]
    if older_than is not None:
        cursor = (ReceivedText.select(ReceivedText.created_at, ReceivedText.id)
                  .where((ReceivedText.id == older_than) & (ReceivedText.service == service)).first())
        if cursor is None or cursor.created_at < cutoff:
            return None
        conditions.append(_before(ReceivedText, cursor.created_at, cursor.id))
    return (ReceivedText.select().where(*conditions)
            .order_by(ReceivedText.created_at.desc(), ReceivedText.id.desc()).limit(limit))


def received_texts_page(service: Service, older_than: uuid.UUID | None = None, *,
                        limit: int = PAGE_SIZE) -> list[ReceivedText]:
    query = received_texts_page_query(service, older_than, limit=limit)
    return list(query) if query is not None else []
