"""The pipeline floor (R4): the least a live send through a provider that reports back costs.

A queue message per notification, as the service sends them, and an actor that makes only the two
writes such a send cannot skip: its notification moved to `sending` (the provider took it) and then
to `delivered` (its receipt), each with the same compare-and-set on the status as the service's
transitions. The moves of the messages a worker's threads hold at the same moment go in one UPDATE
each, through the service's Batcher, as the service's records and receipts do. No provider call,
receipt traffic, retries, metrics or peewee. Its rate against no-op Dramatiq on the same workers is
the most R4 can be while each notification is a message of its own (bench/pipeline.py measures it).
"""
from __future__ import annotations

import uuid

import dramatiq

from bench.floor_db import MARK, connect, insert_sql, leader_connection, now, sms_row
from bench.noop_actors import broker  # noqa: F401  (the same broker, namespace and set-up)
from pipeline.infrastructure.throughput.fast.batching import Batcher

MOVES = (("sending", "sent_at", "created"), ("delivered", "completed_at", "sending"))
SEED_BATCH = 500


def _move(ids: list[str]) -> list[str]:
    cursor = leader_connection().cursor()
    marks = ", ".join([MARK] * len(ids))
    for status, stamp, was in MOVES:
        when = now()
        cursor.execute(f'UPDATE notification SET status = {MARK}, "{stamp}" = {MARK}, updated_at = {MARK} '
                       f"WHERE id IN ({marks}) AND (status || '') = {MARK}", [status, when, when, *ids, was])
    return ids


_moves = Batcher("floor-moves", _move)


@dramatiq.actor(queue_name="floor", max_retries=0)
def floor_send(notification_id: str) -> None:
    _moves.submit(notification_id)


def seed(count: int, service_id: str, template_id: str) -> None:
    """count created text messages of the service, and a floor_send message for each."""
    connection = connect()
    for start in range(0, count, SEED_BATCH):
        rows = [sms_row(str(uuid.uuid4()), service_id, template_id, "06 12345678", "+31612345678",
                        "31", None, "Your code is 1", {"code": "1"}) for _ in range(min(SEED_BATCH, count - start))]
        connection.cursor().execute(insert_sql(len(rows)), [value for row in rows for value in row])
        for row in rows:
            floor_send.send(row[0])
    connection.close()
