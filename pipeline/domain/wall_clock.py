"""A moment as written in the platform's own emails: on the clock of the service's time zone (else the
platform's default, Europe/Amsterdam), with the zone's abbreviation, as the console shows the same moment."""
from __future__ import annotations

import datetime
import zoneinfo

from models.service import DEFAULT_TIME_ZONE


def on_the_clock(value: datetime.datetime, time_zone: str | None = None) -> str:
    """"26-11-2026 18:04 CET": a stored time (naive is UTC) in the zone, numeric so the bilingual emails
    need no month names; CET in winter, CEST in summer, so no reader takes it for another zone's clock."""
    moment = value if value.tzinfo else value.replace(tzinfo=datetime.UTC)
    shown = moment.astimezone(zoneinfo.ZoneInfo(time_zone or DEFAULT_TIME_ZONE))
    return f"{shown:%d-%m-%Y %H:%M} {shown.tzname()}"
