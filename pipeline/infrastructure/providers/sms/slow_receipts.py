"""Which SMS gateways are slow with their delivery receipts, as Notify's
switch-current-sms-provider-on-slow-delivery judges it: of the texts a gateway took between 15 and
5 minutes ago (old enough that a receipt is due), more than 30% still have none."""
from __future__ import annotations

import datetime
from collections.abc import Collection

import peewee

from models.notification import Notification
from models.plain_rows import dict_rows
from pipeline.domain import statuses

CHECKED_FROM = datetime.timedelta(minutes=15)
RECEIPT_DUE_AFTER = datetime.timedelta(minutes=5)
SLOW_FRACTION = 0.3
MIN_TEXTS = 10  # fewer than this tell nothing either way
# Texts are looked for by status and creation time, the columns of an index; one created this long
# before its send (a scheduled one) is left out of the count.
CREATED_BEFORE_SEND = datetime.timedelta(hours=1)
_AFTER_SEND = (statuses.SENDING, statuses.PENDING, statuses.SENT, statuses.DELIVERED, statuses.PERMANENT_FAILURE,
               statuses.TEMPORARY_FAILURE)


def is_slow(sent: int, waiting: int) -> bool:
    return sent >= MIN_TEXTS and waiting > SLOW_FRACTION * sent


def slow_gateways(names: Collection[str], now: datetime.datetime) -> set[str]:
    if not names:
        return set()
    waiting = peewee.fn.SUM(peewee.Case(None, [(Notification.status.in_((statuses.SENDING, statuses.PENDING)), 1)], 0))
    rows = (Notification.select(Notification.sent_by, peewee.fn.COUNT(Notification.id).alias("sent"),
                                waiting.alias("waiting"))
            .where(Notification.status.in_(_AFTER_SEND)
                   & (Notification.created_at >= now - CHECKED_FROM - CREATED_BEFORE_SEND)
                   & (Notification.notification_type == "sms") & Notification.sent_by.in_(list(names))
                   & (Notification.sent_at >= now - CHECKED_FROM) & (Notification.sent_at < now - RECEIPT_DUE_AFTER))
            .group_by(Notification.sent_by))
    return {row["sent_by"] for row in dict_rows(rows) if is_slow(int(row["sent"]), int(row["waiting"] or 0))}
