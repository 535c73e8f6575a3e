"""Times in the console: stored in UTC (naive, as the models keep them), shown and entered in the
service's time zone (`Service.time_zone`), in the reader's language, with the zone named.

Pages outside a service (the worker dashboard, go-live requests, your account) use Europe/Amsterdam,
the default of a new service, unless a time names its own service's zone.
"""
from __future__ import annotations

import datetime
import zoneinfo

from babel.dates import format_date, format_datetime
from flask_babel import get_locale

from console.auth import current_service
from models.service import DEFAULT_TIME_ZONE

MINUTES = "d MMM y HH:mm"
SECONDS = "d MMM y HH:mm:ss"


def zone_name() -> str:
    service = current_service()
    return service.time_zone if service is not None and service.time_zone else DEFAULT_TIME_ZONE


def zone(name: str | None = None) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(name or zone_name())


def _aware(value: datetime.datetime) -> datetime.datetime:
    return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)


def local(value: datetime.datetime, name: str | None = None) -> datetime.datetime:
    """A stored UTC time as the clock on the wall of the zone shows it."""
    return _aware(value).astimezone(zone(name))


def when(value: datetime.datetime | None, seconds: bool = False, time_zone: str | None = None) -> str:
    """"26 nov 2026 07:00 CET": the date and time in the zone, in the page's language, and the zone's
    abbreviation (CET in winter, CEST in summer), so no reader takes it for their own clock's."""
    if value is None:
        return "–"
    shown = zone(time_zone)
    text = format_datetime(_aware(value), SECONDS if seconds else MINUTES, tzinfo=shown, locale=get_locale())
    return f"{text} {local(value, time_zone).tzname()}"


def day(value: datetime.datetime | datetime.date | None) -> str:
    """A date alone ("26 nov 2026"); a stored time is first moved into the zone."""
    if value is None:
        return "–"
    if isinstance(value, datetime.datetime):
        value = local(value).date()
    return format_date(value, "d MMM y", locale=get_locale())


def to_utc(wall_clock: datetime.datetime, name: str | None = None) -> datetime.datetime:
    """A time entered on the zone's clock, as stored (naive UTC). A time the clock skips or shows twice
    (the hours around a change to or from summer time) is read as zoneinfo reads it: its first reading."""
    return wall_clock.replace(tzinfo=zone(name)).astimezone(datetime.UTC).replace(tzinfo=None)


def start_of_day(value: datetime.date, name: str | None = None) -> datetime.datetime:
    """Midnight of that day on the zone's clock, as stored (naive UTC)."""
    return to_utc(datetime.datetime.combine(value, datetime.time()), name)
