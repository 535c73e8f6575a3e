"""Wire encodings shared by every response."""
from __future__ import annotations

import datetime


def iso(value: datetime.datetime | None) -> str | None:
    """UTC date-time with microseconds and a trailing Z, the form all three clients parse."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(datetime.UTC).replace(tzinfo=None)
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
