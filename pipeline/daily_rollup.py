"""The daily rollup: each service's closed (UTC) days summed into a few rows per day, so the dashboard
and the usage page never read a closed day's notifications (models/daily_rollup.py).

A day is rolled up as a whole, once per run, until it is settled, from one snapshot of the notifications
still held and of the purge's tally of those already deleted: a purge running meanwhile neither hides
nor doubles a row, and writes only its own rows of the store. Nothing is written on the accept path or
by a status change; a closed day's figures follow its late receipts at the next run (workers/periodic.py
runs it hourly).
"""
from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterator
from contextlib import AbstractContextManager

import peewee

from models.api_key import KEY_TYPES
from models.daily_rollup import BillingKey, DailyStatusCount, DailyUsage, RolledUpDay
from models.db import database, is_postgres, utcnow
from models.notification import Notification
from models.plain_rows import tuple_rows
from models.service import Service
from pipeline import statuses

# A letter costs once with the printer; one that never left (cancelled, failed its checks) costs nothing.
BILLED_LETTER_STATUSES = (statuses.SENDING, statuses.DELIVERED, statuses.RETURNED_LETTER)
# A settled day has no notification on its way and closed more than this long ago, past the 72-hour
# sending timeout, so a late receipt or bounce no longer changes it.
SETTLE_AFTER_DAYS = 3

# (UTC day, notification type, key type, status, postage ("" if none), rate multiplier (1 if none),
#  billable units (None until known)): what a day's notifications are summed by.
HeldKey = tuple[datetime.date, str, str, str, str, int, int | None]


def as_date(value: object) -> datetime.date:
    # PostgreSQL answers DATE() with a date; on SQLite peewee reads it back through created_at's field,
    # as a datetime at midnight, or it is ISO text.
    if isinstance(value, datetime.datetime):
        return value.date()
    return value if isinstance(value, datetime.date) else datetime.date.fromisoformat(str(value))


def held_counts(service_id: object, start: datetime.date, end: datetime.date,
                key_types: tuple[str, ...] = KEY_TYPES) -> Counter[HeldKey]:
    """The service's notifications still held, created from day start up to (not including) day end.

    One range of the list index (service, key_type, created_at, id) per key type: the read is bounded by
    those days' rows, whatever the table's size."""
    day = peewee.fn.DATE(Notification.created_at)
    counts: Counter[HeldKey] = Counter()
    for key_type in key_types:
        rows = (Notification.select(day.alias("day"), Notification.notification_type, Notification.status,
                                    Notification.postage, Notification.rate_multiplier, Notification.billable_units,
                                    peewee.fn.COUNT(Notification.id).alias("n"))
                .where((Notification.service == service_id) & (Notification.key_type == key_type)
                       & (Notification.created_at >= _midnight(start)) & (Notification.created_at < _midnight(end)))
                .group_by(day, Notification.notification_type, Notification.status, Notification.postage,
                          Notification.rate_multiplier, Notification.billable_units))
        for on, kind, status, postage, multiplier, units, n in tuple_rows(rows):
            counts[(as_date(on), kind, key_type, status, postage or "", multiplier or 1, units)] += n
    return counts


def _midnight(day: datetime.date) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time())


def purged_status_counts(service_id: object, start: datetime.date,
                         end: datetime.date) -> Counter[tuple[datetime.date, str, str, str]]:
    """(day, type, key type, status) counts the purge kept of deleted notifications."""
    rows = DailyStatusCount.select().where((DailyStatusCount.service == service_id) & DailyStatusCount.purged
                                           & (DailyStatusCount.day >= start) & (DailyStatusCount.day < end))
    return Counter({(as_date(r.day), r.notification_type, r.key_type, r.status): r.count for r in rows})


def purged_billing(service_id: object, start: datetime.date, end: datetime.date) -> Counter[BillingKey]:
    rows = DailyUsage.select().where((DailyUsage.service == service_id) & DailyUsage.purged
                                     & (DailyUsage.day >= start) & (DailyUsage.day < end))
    return Counter({(service_id, as_date(r.day), r.notification_type, r.postage, r.rate_multiplier,
                     r.billable_units): r.count for r in rows})


def is_billable(notification_type: str, key_type: str, status: str, billable_units: int | None) -> bool:
    """A notification costs once it has its billable units: a text or email once handed to a provider, a
    letter once with the printer (one that never left, cancelled or failed its checks, costs nothing)."""
    if key_type == "test" or billable_units is None:
        return False
    return notification_type != "letter" or status in BILLED_LETTER_STATUSES


def billing_of(held: Counter[HeldKey], service_id: object) -> Counter[BillingKey]:
    billing: Counter[BillingKey] = Counter()
    for (day, kind, key_type, status, postage, multiplier, units), n in held.items():
        if units is not None and is_billable(kind, key_type, status, units):
            billing[(service_id, day, kind, postage, multiplier, units)] += n
    return billing


def _first_held_day(service_id: object) -> datetime.date | None:
    firsts = [row.created_at for key_type in KEY_TYPES for row in
              Notification.select(Notification.created_at)
              .where((Notification.service == service_id) & (Notification.key_type == key_type))
              .order_by(Notification.created_at).limit(1)]
    return min(firsts).date() if firsts else None


def _days(start: datetime.date, end: datetime.date) -> Iterator[datetime.date]:
    for offset in range((end - start).days):
        yield start + datetime.timedelta(days=offset)


def _snapshot() -> AbstractContextManager[object]:
    # One snapshot for the held rows and the purge's counts: a purge batch committed between the two
    # reads would otherwise be missed by both or counted by both.
    return database.atomic(isolation_level="REPEATABLE READ") if is_postgres() else database.atomic()


def roll_up_service(service_id: object, today: datetime.date) -> int:
    """Roll up the service's closed days not yet settled; returns how many days were written."""
    first = _first_held_day(service_id)
    if first is None or first >= today:
        return 0
    settled = {as_date(row.day) for row in RolledUpDay.select(RolledUpDay.day).where(
        (RolledUpDay.service == service_id) & (RolledUpDay.day >= first) & RolledUpDay.settled)}
    days = [day for day in _days(first, today) if day not in settled]
    if not days:
        return 0
    with _snapshot():
        held = held_counts(service_id, days[0], today)
        purged = purged_status_counts(service_id, days[0], today)
        billing = billing_of(held, service_id) + purged_billing(service_id, days[0], today)
        status_counts: Counter[tuple[datetime.date, str, str, str]] = purged.copy()
        unfinished: set[datetime.date] = set()
        for (day, kind, key_type, status, *_), n in held.items():
            status_counts[(day, kind, key_type, status)] += n
            if status not in statuses.COMPLETED:
                unfinished.add(day)
        DailyStatusCount.delete().where((DailyStatusCount.service == service_id) & ~DailyStatusCount.purged
                                        & DailyStatusCount.day.in_(days)).execute()
        DailyUsage.delete().where((DailyUsage.service == service_id) & ~DailyUsage.purged
                                  & DailyUsage.day.in_(days)).execute()
        RolledUpDay.delete().where((RolledUpDay.service == service_id) & RolledUpDay.day.in_(days)).execute()
        chosen = set(days)
        DailyStatusCount.insert_many([
            {"service": service_id, "day": day, "notification_type": kind, "key_type": key_type, "status": status,
             "count": n} for (day, kind, key_type, status), n in status_counts.items() if day in chosen]).execute()
        DailyUsage.insert_many([
            {"service": service_id, "day": day, "notification_type": kind, "postage": postage,
             "rate_multiplier": multiplier, "billable_units": units, "count": n}
            for (_, day, kind, postage, multiplier, units), n in billing.items() if day in chosen]).execute()
        now = utcnow()
        RolledUpDay.insert_many([
            {"service": service_id, "day": day, "rolled_up_at": now,
             "settled": day not in unfinished and (today - day).days > SETTLE_AFTER_DAYS} for day in days]).execute()
    return len(days)


def roll_up(*, now: datetime.datetime | None = None) -> int:
    """Roll up every service's closed days; returns the number of (service, day) pairs written."""
    today = (now or utcnow()).date()
    return sum(roll_up_service(service.id, today) for service in list(Service.select(Service.id)))
