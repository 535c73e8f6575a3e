"""Received texts as conversations: one per number the service heard from, with the texts we sent
to that number. Received texts are readable for 7 days, sent ones within the service's sms retention."""
from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass

import peewee
from peewee import fn

from models.db import utcnow
from models.notification import Notification, ReceivedText
from models.plain_rows import dict_rows
from models.queries import RECEIVED_TEXT_DAYS, retention_cutoff
from models.service import Service

INBOX_SIZE = 200  # numbers listed, the most recently heard from
CONVERSATION_SIZE = 100  # messages shown of each side, the newest
# Sent texts a person could have had: a test key's were never sent.
SENT_KEY_TYPES = ("live", "team")


@dataclass(frozen=True)
class Thread:
    latest: ReceivedText  # names the conversation in its URL, so a number never appears in one
    received: int


@dataclass(frozen=True)
class Message:
    received: bool
    created_at: datetime.datetime
    content: str
    status: str | None  # a sent text's status


def _received_cutoff(now: datetime.datetime | None) -> datetime.datetime:
    return (now or utcnow()) - datetime.timedelta(days=RECEIVED_TEXT_DAYS)


def inbox(service: Service, *, now: datetime.datetime | None = None) -> list[Thread]:
    """One thread per number, the most recently heard from first."""
    cutoff = _received_cutoff(now)
    in_window = (ReceivedText.service == service) & (ReceivedText.created_at >= cutoff)
    latest_at = peewee.fn.MAX(ReceivedText.created_at)
    groups = list(dict_rows(ReceivedText.select(ReceivedText.user_number, latest_at.alias("latest_at"),
                                                peewee.fn.COUNT(ReceivedText.id).alias("received"))
                            .where(in_window).group_by(ReceivedText.user_number)
                            .order_by(latest_at.desc()).limit(INBOX_SIZE)))
    if not groups:
        return []
    oldest = min(group["latest_at"] for group in groups)
    latest: dict[str, ReceivedText] = {}
    for text in (ReceivedText.select().where(in_window & (ReceivedText.created_at >= oldest)
                                             & ReceivedText.user_number.in_([g["user_number"] for g in groups]))
                 .order_by(ReceivedText.created_at.desc(), ReceivedText.id.desc())):
        latest.setdefault(text.user_number, text)
    return [Thread(latest[group["user_number"]], group["received"]) for group in groups]


def find_received(service: Service, text_id: uuid.UUID, *, now: datetime.datetime | None = None) -> ReceivedText | None:
    return ReceivedText.get_or_none((ReceivedText.id == text_id) & (ReceivedText.service == service)
                                    & (ReceivedText.created_at >= _received_cutoff(now)))


def conversation(service: Service, user_number: str, e164: str | None, *,
                 now: datetime.datetime | None = None) -> list[Message]:
    """The texts from user_number and the sms sent to it (e164, None when it is no valid number),
    oldest first."""
    received = (ReceivedText.select().where(
        (ReceivedText.service == service) & (ReceivedText.user_number == user_number)
        & (ReceivedText.created_at >= _received_cutoff(now)))
        .order_by(ReceivedText.created_at.desc()).limit(CONVERSATION_SIZE))
    messages = [Message(True, text.created_at, text.content, None) for text in received]
    if e164 is not None:
        # The recipient index's range (service, lower(normalised_to), created_at) read newest first: a
        # number's texts, however many the service sent (an E.164 number is the same lower-cased).
        sent = (Notification.select(Notification.created_at, Notification.body, Notification.status).where(
            (Notification.service == service) & Notification.key_type.in_(SENT_KEY_TYPES)
            & (Notification.created_at >= retention_cutoff(service, "sms", now))
            & (Notification.notification_type == "sms") & (fn.LOWER(Notification.normalised_to) == e164.lower()))
            .order_by(Notification.created_at.desc()).limit(CONVERSATION_SIZE))
        messages += [Message(False, row.created_at, row.body, row.status) for row in sent]
    return sorted(messages, key=lambda message: message.created_at)
