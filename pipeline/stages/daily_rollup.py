"""The daily rollup: each service's closed (UTC) days summed into a few rows per day, so the dashboard
and the usage page never read a closed day's notifications (models/daily_rollup.py).

A day is summed as a whole, on each run until it is settled, from one snapshot of the counts of the
notifications still held (pipeline/stages/held_counts.py, kept as they are written: no notification is read)
and of the purge's tally of those already deleted: a purge running meanwhile neither hides nor doubles
a row, and writes only its own rows of the store. Only a day whose figures changed since the last run is
written again; a closed day's figures follow its late receipts at the next run (workers/periodic.py runs
it hourly). Days before the counts began (a database upgraded with notifications in it) are summed from
their notifications.
"""
from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

import peewee

from models.api_key import KEY_TYPES
from models.daily_rollup import BillingKey, DailyStatusCount, DailyUsage, RolledUpDay
from models.db import database, is_postgres, utcnow
from models.held_count import HeldKey, as_date
from models.notification import Notification
from models.plain_rows import tuple_rows
from models.service import Service
from pipeline.domain import statuses
from pipeline.infrastructure import throughput
from pipeline.stages.held_counts import counted_from

# A letter costs once with the printer; one that never left (cancelled, failed its checks) costs nothing.
BILLED_LETTER_STATUSES = (statuses.SENDING, statuses.DELIVERED, statuses.RETURNED_LETTER)
# A settled day has no notification on its way and closed more than this long ago, past the 72-hour
# sending timeout, so a late receipt or bounce no longer changes it.
SETTLE_AFTER_DAYS = 3

def held_counts(service_id: object, start: datetime.date, end: datetime.date,
                key_types: tuple[str, ...] = KEY_TYPES) -> Counter[HeldKey]:
    """The service's notifications still held, created from day start up to (not including) day end:
    from the counts kept as they are written, for the days they cover (every day, on a database made
    with step 180), and from the notifications for days before them."""
    first_counted = counted_from()
    counts: Counter[HeldKey] = Counter()
    if start < first_counted:
        counts += counted_from_rows(service_id, start, min(end, first_counted), key_types)
    if end > first_counted:
        counts += throughput.seam().held_counts(service_id, max(start, first_counted), end, key_types)
    return counts


def counted_from_rows(service_id: object, start: datetime.date, end: datetime.date,
                       key_types: tuple[str, ...]) -> Counter[HeldKey]:
    """Counted from the notifications: one range of the list index (service, key_type, created_at, id) per
    key type, bounded by those days' rows."""
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


@dataclass
class DayFigures:
    """What the rollup keeps of a day: counts per (type, key type, status), billable notifications per
    (type, postage, rate multiplier, billable units), and whether the day is settled."""
    by_status: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    billing: Counter[tuple[str, str, int, int]] = field(default_factory=Counter)
    settled: bool = False


def _figures(service_id: object, days: list[datetime.date], today: datetime.date) -> dict[datetime.date, DayFigures]:
    """The days' figures now: the held notifications' counts and the purge's tally."""
    figures = {day: DayFigures() for day in days}
    held = held_counts(service_id, days[0], today)
    billing = billing_of(held, service_id) + purged_billing(service_id, days[0], today)
    unfinished: set[datetime.date] = set()
    for (day, kind, key_type, status), n in purged_status_counts(service_id, days[0], today).items():
        if day in figures:
            figures[day].by_status[(kind, key_type, status)] += n
    for (day, kind, key_type, status, *_), n in held.items():
        if day in figures:
            figures[day].by_status[(kind, key_type, status)] += n
        if status not in statuses.COMPLETED:
            unfinished.add(day)
    for (_, day, kind, postage, multiplier, units), n in billing.items():
        if day in figures:
            figures[day].billing[(kind, postage, multiplier, units)] += n
    for day, each in figures.items():
        each.settled = day not in unfinished and (today - day).days > SETTLE_AFTER_DAYS
    return figures


def _stored(service_id: object, days: list[datetime.date]) -> dict[datetime.date, DayFigures]:
    """The days' figures as the last run wrote them (days never rolled up are missing)."""
    stored = {as_date(row.day): DayFigures(settled=row.settled) for row in RolledUpDay.select().where(
        (RolledUpDay.service == service_id) & RolledUpDay.day.in_(days))}
    for row in DailyStatusCount.select().where((DailyStatusCount.service == service_id) & ~DailyStatusCount.purged
                                               & DailyStatusCount.day.in_(days)):
        if as_date(row.day) in stored:
            stored[as_date(row.day)].by_status[(row.notification_type, row.key_type, row.status)] += row.count
    for usage in DailyUsage.select().where((DailyUsage.service == service_id) & ~DailyUsage.purged
                                           & DailyUsage.day.in_(days)):
        if as_date(usage.day) in stored:
            stored[as_date(usage.day)].billing[(usage.notification_type, usage.postage, usage.rate_multiplier,
                                                usage.billable_units)] += usage.count
    return stored


def _write(service_id: object, figures: dict[datetime.date, DayFigures]) -> None:
    days = list(figures)
    DailyStatusCount.delete().where((DailyStatusCount.service == service_id) & ~DailyStatusCount.purged
                                    & DailyStatusCount.day.in_(days)).execute()
    DailyUsage.delete().where((DailyUsage.service == service_id) & ~DailyUsage.purged
                              & DailyUsage.day.in_(days)).execute()
    RolledUpDay.delete().where((RolledUpDay.service == service_id) & RolledUpDay.day.in_(days)).execute()
    DailyStatusCount.insert_many([
        {"service": service_id, "day": day, "notification_type": kind, "key_type": key_type, "status": status,
         "count": n} for day, each in figures.items() for (kind, key_type, status), n in each.by_status.items()
    ]).execute()
    DailyUsage.insert_many([
        {"service": service_id, "day": day, "notification_type": kind, "postage": postage,
         "rate_multiplier": multiplier, "billable_units": units, "count": n}
        for day, each in figures.items() for (kind, postage, multiplier, units), n in each.billing.items()
    ]).execute()
    now = utcnow()
    RolledUpDay.insert_many([{"service": service_id, "day": day, "rolled_up_at": now, "settled": each.settled}
                             for day, each in figures.items()]).execute()


def roll_up_service(service_id: object, today: datetime.date) -> int:
    """Roll up the service's closed days not yet settled, writing only those whose figures changed since
    the last run (or never rolled up); returns how many days were written."""
    first = _first_held_day(service_id)
    if first is None or first >= today:
        return 0
    settled = {as_date(row.day) for row in RolledUpDay.select(RolledUpDay.day).where(
        (RolledUpDay.service == service_id) & (RolledUpDay.day >= first) & RolledUpDay.settled)}
    days = [day for day in _days(first, today) if day not in settled]
    if not days:
        return 0
    with _snapshot():
        figures = _figures(service_id, days, today)
        stored = _stored(service_id, days)
        changed = {day: each for day, each in figures.items() if stored.get(day) != each}
        if changed:
            _write(service_id, changed)
    return len(changed)


def roll_up(*, now: datetime.datetime | None = None) -> int:
    """Roll up every service's closed days; returns the number of (service, day) pairs written."""
    today = (now or utcnow()).date()
    return sum(roll_up_service(service.id, today) for service in list(Service.select(Service.id)))
