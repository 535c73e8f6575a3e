"""The console's messages list: a service's notifications found by recipient or reference, filtered by
channel, status and date, within the service's retention period, newest first in keyset pages.

Built on the v2 list's query (models.queries), so the retention, status names and paging are the API's.
A recipient is matched as the API stored it, normalised the way the API normalises it (a phone number
to E.164, an email address stripped; compared lower-cased), or a letter by its whole address with the
spacing ignored; the index on (service, lower(normalised_to), created_at) reads a recipient's messages
newest first however many the service has.
"""
from __future__ import annotations

import datetime
import uuid
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import peewee
from peewee import fn

from models.notification import Notification
from models.queries import NotificationFilters, merged, notification_parts
from models.service import Service
from pipeline.domain.recipients import InvalidRecipient, validate_email_address, validate_phone_number
from pipeline.domain.statuses import FILTER_VALUES, LETTER_PUBLIC

LETTER_ONLY_FILTERS = frozenset(LETTER_PUBLIC.values())  # as the API: only letters are "accepted" or "received"
# The list's "sent with" choices: one key type, or live and team together (what reached real people).
LIVE_AND_TEAM = "live-team"
KEY_TYPE_CHOICES: dict[str, tuple[str, ...]] = {LIVE_AND_TEAM: ("live", "team"), "live": ("live",),
                                                "team": ("team",), "test": ("test",)}


@dataclass(frozen=True)
class MessageSearch:
    text: str = ""  # a recipient or a reference
    channels: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()  # public filter names (pipeline.domain.statuses.FILTER_VALUES)
    date_from: datetime.date | None = None
    date_to: datetime.date | None = None  # inclusive
    key_type: str = LIVE_AND_TEAM  # a key of KEY_TYPE_CHOICES
    created_before: datetime.datetime | None = None  # a report holds the messages accepted until it was asked for

    def as_dict(self) -> dict[str, Any]:
        """As JSON keeps it (a background report's filters)."""
        return {"text": self.text, "channels": list(self.channels), "statuses": list(self.statuses),
                "date_from": _iso(self.date_from), "date_to": _iso(self.date_to), "key_type": self.key_type,
                "created_before": _iso(self.created_before)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MessageSearch:
        def day(value: str | None) -> datetime.date | None:
            return datetime.date.fromisoformat(value) if value else None

        before = data.get("created_before")
        return cls(text=data["text"], channels=tuple(data["channels"]), statuses=tuple(data["statuses"]),
                   date_from=day(data["date_from"]), date_to=day(data["date_to"]), key_type=data["key_type"],
                   created_before=datetime.datetime.fromisoformat(before) if before else None)


def _iso(value: datetime.date | None) -> str | None:
    return value.isoformat() if value else None


def recipient_forms(text: str) -> list[str]:
    """The lower-cased forms the API would have stored for this recipient, whatever the channel."""
    forms = {"".join(text.split()).lower()}  # a letter's normalised address, or anything typed verbatim
    for normalise in (lambda raw: validate_phone_number(raw).e164, validate_email_address):
        try:
            forms.add(normalise(text).lower())
        except InvalidRecipient:
            pass
    return sorted(forms)


def _filters(search: MessageSearch) -> NotificationFilters:
    def expand(names: list[str]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(status for name in names for status in FILTER_VALUES[name]))

    plain = [name for name in search.statuses if name not in LETTER_ONLY_FILTERS]
    return NotificationFilters(
        statuses=expand(plain),
        letter_statuses=expand([name for name in search.statuses if name in LETTER_ONLY_FILTERS]),
        notification_types=search.channels,
        include_jobs=True,  # unlike the API's list: a spreadsheet's messages are the service's messages too
    )


def _midnight(day: datetime.date, time_zone: str) -> datetime.datetime:
    """Midnight on the service's clock, as stored (naive UTC): a day of the list is the service's day."""
    wall_clock = datetime.datetime.combine(day, datetime.time(), tzinfo=zoneinfo.ZoneInfo(time_zone))
    return wall_clock.astimezone(datetime.UTC).replace(tzinfo=None)


def _conditions(service: Service, search: MessageSearch) -> list[peewee.Expression]:
    """The search's conditions beyond the API list's filters: the text, the dates."""
    conditions = []
    text = search.text.strip()
    if text:
        conditions.append((fn.LOWER(Notification.normalised_to).in_(recipient_forms(text)))
                          | (Notification.reference == text))
    if search.date_from:
        conditions.append(Notification.created_at >= _midnight(search.date_from, service.time_zone))
    if search.date_to:
        conditions.append(Notification.created_at < _midnight(search.date_to + datetime.timedelta(days=1),
                                                              service.time_zone))
    if search.created_before:
        conditions.append(Notification.created_at <= search.created_before)
    return conditions


def _parts(service: Service, search: MessageSearch, older_than: uuid.UUID | None, *,
           limit: int) -> list[peewee.Select] | None:
    """Every index range the search reads (per key type, and per channel and status when filtered by
    status); None when the cursor is unknown."""
    parts: list[peewee.Select] = []
    for key_type in KEY_TYPE_CHOICES[search.key_type]:
        found = notification_parts(service, key_type, _filters(search), older_than, limit=limit,
                                   also=_conditions(service, search))
        if found is None:
            return None
        parts += found
    return parts


def search_query(service: Service, search: MessageSearch, older_than: uuid.UUID | None = None, *,
                 limit: int) -> peewee.SelectBase | None:
    """The matching notifications newest first, after the cursor; None when the cursor is unknown.
    Live and team together are each key type's ranges merged: `key_type IN (...)` would have the
    database sort every match."""
    parts = _parts(service, search, older_than, limit=limit)
    return None if parts is None else merged(parts, limit)


def search_page(service: Service, search: MessageSearch, older_than: uuid.UUID | None = None, *,
                limit: int) -> list[Notification]:
    query = search_query(service, search, older_than, limit=limit)
    return list(query) if query is not None else []


def count_matches(service: Service, search: MessageSearch, *, at_most: int | None = None) -> int:
    """How many messages match; counting stops past at_most (enough to choose how to build a report)."""
    cap = None if at_most is None else at_most + 1
    total = 0
    for part in _parts(service, search, None, limit=1) or []:
        total += part.select(Notification.id).order_by().limit(None if cap is None else cap - total).count()
        if cap is not None and total >= cap:
            return cap
    return total


def all_matches(service: Service, search: MessageSearch, *, chunk: int = 1000) -> Iterator[list[Notification]]:
    """Every match, a chunk at a time, each chunk one keyset page: a report of any size never holds
    more than a chunk of rows nor one long-running read."""
    cursor = None
    while True:
        rows = search_page(service, search, cursor, limit=chunk)
        if rows:
            yield rows
        if len(rows) < chunk:
            return
        cursor = rows[-1].id
