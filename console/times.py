"""Times in the console: stored in UTC (naive, as the models keep them), shown and entered in the
service's time zone (`Service.time_zone`), in the reader's language, with the zone named.

Pages outside a service (the worker dashboard, go-live requests, your account) use Europe/Amsterdam,
the default of a new service, unless a time names its own service's zone.
"""
from __future__ import annotations

import datetime
import zoneinfo

from babel.dates import format_date
from flask_babel import get_locale

from console.auth import current_service
from models.service import DEFAULT_TIME_ZONE
from pipeline.domain.wall_clock import on_the_clock, on_the_wall


def zone_name() -> str:
    service = current_service()
    return service.time_zone if service is not None and service.time_zone else DEFAULT_TIME_ZONE


def zone(name: str | None = None) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(name or zone_name())


def local(value: datetime.datetime, name: str | None = None) -> datetime.datetime:
    """A stored UTC time as the clock on the wall of the zone shows it."""
    return on_the_wall(value, name or zone_name())


def when(value: datetime.datetime | None, seconds: bool = False, time_zone: str | None = None) -> str:
    """"26 nov 2026 07:00 CET": the date and time in the zone, in the page's language, and the zone's
    abbreviation, written as the platform's emails and the console's downloads write it."""
    if value is None:
        return "–"
    return on_the_clock(value, time_zone or zone_name(), str(get_locale()), seconds=seconds)


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
