"""The accept floor: the least any accepted send costs, served exactly like the service's web process.

A WSGI endpoint without Flask that does only what no accept can skip: it verifies the caller's
token (its HS256 signature by the key and its iat: the official clients send a new one with every
request, so no cache of verified tokens helps them), parses the body, checks the phone number with
phonenumbers and fills the template, INSERTs the row into the notification table (the rows of
requests waiting at the same moment in one statement, through the service's own Batcher), pushes a
queue message per row to Redis in one pipeline once the INSERT has returned, and answers the 201
body. The row holds what the service's would, its content encrypted as the service keeps it (the
service reads it back). Nothing else: no schema validation, limits, idempotency, metrics, logs of
its own or Flask (gunicorn's access log is on, as for the service). No real accept can be cheaper,
so its rate is the most the service's can reach on this machine and server, and its CPU per request
the least the service's can be (bench/accept.py serves it beside them).

Configured by environment (bench/accept.py sets it): DATABASE_URL (bench/floor_db.py), REDIS_URL,
QUEUE_NAMESPACE, FLOOR_SERVICE_ID, FLOOR_TEMPLATE_ID, FLOOR_TEMPLATE_BODY, FLOOR_KEY_SECRET.
"""
from __future__ import annotations

import base64
import hmac
import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable

import phonenumbers
import redis

from bench.floor_db import insert_sql, leader_connection, sms_row
from pipeline.infrastructure.throughput.fast.batching import Batcher

SERVICE_ID = os.environ["FLOOR_SERVICE_ID"]
TEMPLATE_ID = os.environ["FLOOR_TEMPLATE_ID"]
TEMPLATE_BODY = os.environ["FLOOR_TEMPLATE_BODY"]
SECRET = os.environ["FLOOR_KEY_SECRET"].encode()
QUEUE = f"{os.environ['QUEUE_NAMESPACE']}:floor"
PLACEHOLDER = re.compile(r"\(\(([^)]+)\)\)")

_redis = redis.Redis.from_url(os.environ["REDIS_URL"])


def _write(rows: list[tuple]) -> list[tuple]:
    leader_connection().cursor().execute(insert_sql(len(rows)), [value for row in rows for value in row])
    pipe = _redis.pipeline(transaction=False)
    now = int(time.time() * 1000)
    for row in rows:
        pipe.rpush(QUEUE, json.dumps({"queue_name": "send-sms", "actor_name": "deliver", "args": [row[0]],
                                      "kwargs": {}, "options": {}, "message_id": row[0], "message_timestamp": now}))
    pipe.execute()
    return rows


_writer = Batcher("floor-writer", _write, linger_seconds=0.002)


def _authenticated(environ: dict) -> bool:
    """The least a token's check can be: its HS256 signature by the key and its iat within 30 s."""
    signed, _, signature = environ.get("HTTP_AUTHORIZATION", "").partition(" ")[2].rpartition(".")
    expected = base64.urlsafe_b64encode(hmac.digest(SECRET, signed.encode(), "sha256")).rstrip(b"=")
    if not hmac.compare_digest(expected, signature.encode()):
        return False
    claims = signed.partition(".")[2]
    iat = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4))).get("iat")
    return isinstance(iat, int) and abs(time.time() - iat) <= 30


def app(environ: dict, start_response: Callable) -> Iterable[bytes]:
    if environ["REQUEST_METHOD"] != "POST":
        start_response("404 NOT FOUND", [("Content-Length", "0")])
        return [b""]
    if not _authenticated(environ):
        start_response("403 FORBIDDEN", [("Content-Length", "0")])
        return [b""]
    body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
    number = phonenumbers.parse(body["phone_number"], "NL")
    if not phonenumbers.is_valid_number(number):
        start_response("400 BAD REQUEST", [("Content-Length", "0")])
        return [b""]
    values = body.get("personalisation") or {}
    content = PLACEHOLDER.sub(lambda match: str(values.get(match.group(1), "")), TEMPLATE_BODY)
    notification_id = str(uuid.uuid4())
    _writer.submit(sms_row(notification_id, SERVICE_ID, TEMPLATE_ID, body["phone_number"],
                           phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164),
                           str(number.country_code), body.get("reference"), content, values))
    base = f"http://{environ.get('HTTP_HOST', 'localhost')}"
    answer = json.dumps({
        "id": notification_id, "reference": body.get("reference"), "uri": f"{base}/v2/notifications/{notification_id}",
        "template": {"id": TEMPLATE_ID, "version": 1, "uri": f"{base}/v2/template/{TEMPLATE_ID}"},
        "scheduled_for": None, "content": {"body": content, "from_number": "Notify"},
    }).encode()
    start_response("201 CREATED", [("Content-Type", "application/json"), ("Content-Length", str(len(answer)))])
    return [answer]
