"""The migration steps in order: each one's DDL is in sql/<version>.<dialect>.sql; the few that also
rewrite rows do it here, on tables named as the step knew them, never through a model class."""
from __future__ import annotations

import datetime
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import peewee

from models import crypto

# Release 0.8.0's whole schema is step 110: databases of 0.8.0 (and later) record it, older ones are
# refused with a word on how to upgrade them (through 0.8.0's own release step).
BASELINE = 110
OLDEST_RELEASE = "0.8.0"


@dataclass(frozen=True)
class Step:
    version: int
    name: str
    data: Callable[[peewee.Database], None] | None = None
    # False: on PostgreSQL the step's statements run one at a time outside a transaction (concurrent index
    # builds only, each written to be run again); SQLite runs every step in a transaction.
    transaction: bool = True


def _seed_rates_of_0_8_0(db: peewee.Database) -> None:
    """The default rate card release 0.8.0 was installed with: list prices before any free allowance."""
    rate = peewee.Table("rate", ("id", "notification_type", "postage", "valid_from", "rate", "sheet_rate",
                                 "created_at")).bind(db)
    since, now = datetime.date(2020, 1, 1), datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    letters = {"second": "0.68", "first": "1.22", "economy": "0.59", "europe": "1.63", "rest-of-world": "1.63"}
    rows = [("sms", None, "0.0227", None)] + [("letter", postage, first, "0.05") for postage, first in letters.items()]
    for kind, postage, first, further in rows:
        rate.insert(id=uuid.uuid4().hex, notification_type=kind, postage=postage, valid_from=since, rate=first,
                    sheet_rate=further, created_at=now).execute()


RECEIVED_TEXT_BATCH = 500


def _seal_received_texts(db: peewee.Database) -> None:
    """Received texts stored before in clear are sealed as sent content is, a batch at a time in the
    order of their ids (memory stays bounded however many there are). A text already sealed is left
    alone, so a step interrupted and run again finishes the job."""
    table = peewee.Table("receivedtext").bind(db)
    after = None
    while True:
        query = table.select(table.c.id, table.c.content).order_by(table.c.id).limit(RECEIVED_TEXT_BATCH)
        rows = list((query if after is None else query.where(table.c.id > after)).tuples())
        for row_id, value in rows:
            if not _sealed(value):
                table.update({table.c.content: crypto.encrypt(value)}).where(table.c.id == row_id).execute()
        if len(rows) < RECEIVED_TEXT_BATCH:
            return
        after = rows[-1][0]


def _sealed(value: str) -> bool:
    try:
        crypto.decrypt(value)
    except crypto.UNREADABLE:
        return False
    return True


PLATFORM_SERVICE_ID = uuid.UUID("392aa551-9afe-52d9-b6b2-fefdf421db55")


def _platform_service_texts(db: peewee.Database) -> None:
    """The platform service now also sends texts (codes to a mobile number); one made before says so too."""
    service = peewee.Table("service").bind(db)
    key = PLATFORM_SERVICE_ID.hex  # as peewee's UUIDField writes it, which both databases read
    row = service.select(service.c.permissions).where(service.c.id == key).tuples().first()
    if row is None:
        return
    permissions = json.loads(row[0])
    if "sms" not in permissions:
        service.update({service.c.permissions: json.dumps([*permissions, "sms"], separators=(",", ":"))}) \
            .where(service.c.id == key).execute()


MIGRATIONS: list[Step] = [
    Step(BASELINE, f"the whole schema of release {OLDEST_RELEASE}", _seed_rates_of_0_8_0),
    Step(120, "one daily store: the purge's counts and billable units kept in the rollup's tables"),
    Step(125, "a send waiting out a provider outage says when it is tried again"),
    Step(130, "received texts encrypted at rest, as sent content", _seal_received_texts),
    Step(135, "sms gateways have a type (json, spryng, cm, twilio) and its account settings"),
    Step(145, "letter batches held until the print provider may be sent to"),
    Step(150, "a service's time zone, for the console's times and schedules"),
    Step(155, "account settings: a verified mobile number, email changes waiting for their link",
         _platform_service_texts),
    Step(160, "api keys: an optional expiry date, and when its warning went out"),
    Step(165, "organisations: domains, members, services, brands, rate agreements, two-step go-live"),
    Step(180, "each service's notifications counted per day and kind as they are written, for the dashboard"),
    Step(185, "the lists' indexes per channel and status, and for scheduled sends", transaction=False),
    Step(190, "each sms gateway's pace: messages a second and requests in flight"),
    Step(195, "a bulk job's rows kept in parts, each taken by the chunk that sends it"),
    Step(200, "the lists' indexes per channel, for a channel filter alone and for failed rows", transaction=False),
    Step(205, "a fallback chain beside each message: the one stood in for, the one sent instead, what is left"),
    Step(215, "the follow-up outbox: queue messages written in the transaction of the change they follow"),
    Step(220, "case events: a service's link to the ZGW APIs, and each message Open Notificaties posted"),
    Step(230, "a messages report built in the background is written in the language of the page that asked"),
]
