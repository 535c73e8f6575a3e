"""The one way a moment is written for a person: on the clock of the service's time zone (else the
platform's default, Europe/Amsterdam), in the reader's language, with the zone's abbreviation. The
console's pages, the platform's own emails and the console's downloads all write a time with
`on_the_clock`, so "9 dec 2026 15:36 CET" reads the same wherever a person meets it."""
from __future__ import annotations

import datetime
import zoneinfo

from babel.dates import format_datetime

from pipeline.domain.i18n import LOCALES

# The platform's zone, for a service that names none; models/service.py stores the same default (the
# models sit above this floor; tests/test_layers.py holds the two equal).
DEFAULT_TIME_ZONE = "Europe/Amsterdam"
MINUTES = "d MMM y HH:mm"
SECONDS = "d MMM y HH:mm:ss"  # the worker dashboard's and local mailbox's, where seconds tell events apart


def _aware(value: datetime.datetime) -> datetime.datetime:
    return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)  # stored times are naive UTC


def on_the_wall(value: datetime.datetime, time_zone: str | None = None) -> datetime.datetime:
    """A stored time as the clock on the wall of the zone shows it."""
    return _aware(value).astimezone(zoneinfo.ZoneInfo(time_zone or DEFAULT_TIME_ZONE))


def on_the_clock(value: datetime.datetime, time_zone: str | None = None, language: str = "nl",
                 seconds: bool = False) -> str:
    """"9 dec 2026 15:36 CET" (English: "9 Dec 2026 15:36 CET"): a stored time in the zone, the month
    abbreviated in the language, and the zone's abbreviation (CET in winter, CEST in summer), so no reader
    takes it for their own clock's."""
    shown = on_the_wall(value, time_zone)
    locale = LOCALES.get(language, LOCALES["nl"])
    text = format_datetime(shown, SECONDS if seconds else MINUTES, tzinfo=shown.tzinfo, locale=locale)
    return f"{text} {shown.tzname()}"
