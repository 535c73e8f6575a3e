"""A service's figures per day, read the cheap way from the daily store (models/daily_rollup.py): closed
days from the rollup's rows, the days after the last rolled-up one (today, usually alone) from the
notifications through the list index, and days never rolled up (purged before the rollup reached them)
from the purge's tally.
"""
from __future__ import annotations

import datetime
from collections import Counter

import peewee

from models.daily_rollup import BillingKey, DailyStatusCount, DailyUsage, RolledUpDay
from models.notification import Notification
from models.plain_rows import tuple_rows
from models.service import CHANNELS
from pipeline.domain.statuses import EVERY_STATUS
from pipeline.stages.daily_rollup import as_date, billing_of, held_counts, purged_billing, purged_status_counts

BILLED_KEY_TYPES = ("live", "team")  # test keys never cost
# (day, notification type, status)
StatusKey = tuple[datetime.date, str, str]


def _split(service_id: object, start: datetime.date,
           end: datetime.date) -> tuple[set[datetime.date], datetime.date]:
    """The rolled-up days in [start, end), and the first day whose notifications must be read.

    The rollup covers every closed day from the service's first held notification on, so a day before
    the last rolled-up one that is not rolled up holds no notifications: only the purge's counts."""
    rolled = {as_date(row.day) for row in RolledUpDay.select(RolledUpDay.day).where(
        (RolledUpDay.service == service_id) & (RolledUpDay.day >= start) & (RolledUpDay.day < end))}
    last = RolledUpDay.select(peewee.fn.MAX(RolledUpDay.day)).where(RolledUpDay.service == service_id).scalar()
    read_from = max(start, as_date(last) + datetime.timedelta(days=1)) if last else start
    return rolled, read_from


def status_counts(service_id: object, start: datetime.date, end: datetime.date,
                  key_types: tuple[str, ...]) -> Counter[StatusKey]:
    """Notifications of the key types created from day start to before day end, per day, type and status."""
    rolled, read_from = _split(service_id, start, end)
    counts: Counter[StatusKey] = Counter()
    if rolled:
        for row in DailyStatusCount.select().where(
                (DailyStatusCount.service == service_id) & ~DailyStatusCount.purged
                & DailyStatusCount.day.in_(sorted(rolled)) & DailyStatusCount.key_type.in_(key_types)):
            counts[(as_date(row.day), row.notification_type, row.status)] += row.count
    if read_from < end:
        for (day, kind, _, status, *_), n in held_counts(service_id, read_from, end, key_types).items():
            counts[(day, kind, status)] += n
    for (day, kind, key_type, status), n in purged_status_counts(service_id, start, end).items():
        if day not in rolled and key_type in key_types:
            counts[(day, kind, status)] += n
    return counts


def counts_since(service_id: object, start: datetime.datetime, now: datetime.datetime,
                 key_types: tuple[str, ...]) -> Counter[tuple[str, str]]:
    """Notifications of the key types created from the moment `start` (naive UTC, a midnight of the
    service's zone) up to now, per type and status. The whole UTC days come the cheap way (status_counts);
    the hours before the first UTC midnight from the notifications themselves (a part of a day already
    purged is not in them: the purge's tally is per UTC day). Every channel and status is named, so that
    the kind index (service, key_type, notification_type, status, created_at, id) bounds each of its
    ranges by those hours: their entries are counted off the index alone, not each row visited (an hour
    is 60,000 rows at 10 million, scattered over the table when it is not in time order)."""
    midnight = datetime.datetime.combine(start.date(), datetime.time())
    if midnight < start:
        midnight += datetime.timedelta(days=1)
    counts: Counter[tuple[str, str]] = Counter()
    for (_, kind, status), n in status_counts(service_id, midnight.date(), now.date() + datetime.timedelta(days=1),
                                              key_types).items():
        counts[(kind, status)] += n
    for key_type in key_types if start < midnight else ():
        rows = (Notification.select(Notification.notification_type, Notification.status,
                                    peewee.fn.COUNT(Notification.id))
                .where((Notification.service == service_id) & (Notification.key_type == key_type)
                       & Notification.notification_type.in_(CHANNELS) & Notification.status.in_(EVERY_STATUS)
                       & (Notification.created_at >= start) & (Notification.created_at < midnight))
                .group_by(Notification.notification_type, Notification.status))
        for kind, status, n in tuple_rows(rows):
            counts[(kind, status)] += n
    return counts


def billing_counts(service_id: object, start: datetime.date, end: datetime.date) -> Counter[BillingKey]:
    """Billable notifications created from day start to before day end (models/daily_rollup.BillingKey)."""
    rolled, read_from = _split(service_id, start, end)
    counts: Counter[BillingKey] = Counter()
    if rolled:
        for row in DailyUsage.select().where((DailyUsage.service == service_id) & ~DailyUsage.purged
                                             & DailyUsage.day.in_(sorted(rolled))):
            counts[(service_id, as_date(row.day), row.notification_type, row.postage, row.rate_multiplier,
                    row.billable_units)] += row.count
    if read_from < end:
        counts += billing_of(held_counts(service_id, read_from, end, BILLED_KEY_TYPES), service_id)
    for key, n in purged_billing(service_id, start, end).items():
        if key[1] not in rolled:
            counts[key] += n
    return counts
