"""Callbacks to services: the JSON payloads, their signature, and one HTTP delivery attempt.

Every callback is a JSON POST with these headers:

    Authorization: Bearer <the service's bearer token>
    Content-Type: application/json
    X-Notify-Timestamp: <seconds since the epoch when the request was signed>
    X-Notify-Signature: sha256=<hex HMAC-SHA256, key: the bearer token (UTF-8),
                                message: the timestamp, ".", then the raw request body>
    X-Notify-Callback-Id: <a UUID naming the callback: the same on every attempt and every re-send
                           of one event, another for another event (callback_id below)>

A receiver verifies by recomputing the HMAC over the timestamp header, a dot and the body bytes exactly
as received, comparing in constant time (hmac.compare_digest), and refusing timestamps more than a few
minutes old, so a captured request cannot be replayed later. The Bearer header alone proves only that
the sender knows the token; the signature also proves the body was not altered on the way. Delivery is
at least once (a worker killed after the receiver answered sends the callback again): a receiver drops
a repeat by the X-Notify-Callback-Id it has seen.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

import requests

from models.notification import Notification, ReceivedText
from models.notification_event import COMPLAINT, RETURNED_LETTER, UNSUBSCRIBE, NotificationEvent
from pipeline.domain.formatting import iso
from pipeline.domain.statuses import public_status
from pipeline.infrastructure import outbound

DELIVERY_STATUS = "delivery-status"
INBOUND_SMS = "inbound-sms"
# Events after delivery (models/notification_event.py) go to callbacks of the event's own kind.
EVENT_KINDS = (COMPLAINT, RETURNED_LETTER, UNSUBSCRIBE)
KINDS = (DELIVERY_STATUS, INBOUND_SMS, *EVENT_KINDS)
# The names of an event's id and date in its payload: Notify's complaint callback says complaint_id
# and complaint_date; the other kinds follow that pattern.
_EVENT_NAMES = {COMPLAINT: "complaint", RETURNED_LETTER: "returned_letter", UNSUBSCRIBE: "unsubscribe_request"}
# (connect, read) seconds: a slow receiver holds a worker thread for at most this long per attempt.
TIMEOUT = (5.0, 10.0)
MAX_ERROR_LENGTH = 500
CALLBACK_ID_HEADER = "X-Notify-Callback-Id"
# Fixed for good: a callback's id is derived from it, and a receiver compares ids across releases.
_CALLBACK_IDS = uuid.UUID("6debf579-1ed4-4f64-a9df-f1c506bcfdbb")


def callback_id(kind: str, subject_id: str, event: str) -> str:
    """The callback's stable id: derived from what it reports (its kind, the notification or received
    text, the event: the status changed to, "received", the event's kind), so every attempt and every
    re-send of it carries the same one with nothing stored, and another status change another one."""
    return str(uuid.uuid5(_CALLBACK_IDS, f"{kind}/{subject_id}/{event}"))


def delivery_status_payload(notification: Notification) -> dict[str, Any]:
    return {
        "id": str(notification.id),
        "reference": notification.reference,
        "to": notification.to,
        "status": public_status(notification.notification_type, notification.status),
        "created_at": iso(notification.created_at),
        "completed_at": iso(notification.completed_at),
        "sent_at": iso(notification.sent_at),
        "notification_type": notification.notification_type,
        "template_id": str(notification.template_id) if notification.template_id else None,
        "template_version": notification.template_version,
    }


def inbound_sms_payload(text: ReceivedText) -> dict[str, Any]:
    return {
        "id": str(text.id),
        "source_number": text.user_number,
        "destination_number": text.notify_number,
        "message": text.content,
        "date_received": iso(text.created_at),
    }


def event_payload(event: NotificationEvent) -> dict[str, Any]:
    """A complaint, unsubscribe request or returned letter, from what was kept with the event."""
    detail, name = event.detail or {}, _EVENT_NAMES[event.kind]
    payload = {
        "notification_id": str(event.notification_id),
        f"{name}_id": str(event.id),
        "reference": detail.get("reference"),
        "to": detail.get("to"),
        "template_id": detail.get("template_id"),
        "template_version": detail.get("template_version"),
        f"{name}_date": iso(event.occurred_at),
    }
    if event.kind == COMPLAINT:
        payload["complaint_type"] = detail.get("complaint_type")
    return payload


def signature(token: str, timestamp: str, body: bytes) -> str:
    """The X-Notify-Signature value for this body signed at this timestamp."""
    digest = hmac.new(token.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def signed_headers(token: str, body: bytes, now: float | None = None) -> dict[str, str]:
    timestamp = str(int(now if now is not None else time.time()))
    return {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "X-Notify-Timestamp": timestamp,
        "X-Notify-Signature": signature(token, timestamp, body),
    }


@dataclass(frozen=True)
class Outcome:
    status_code: int | None  # None when no HTTP answer came
    error: str | None
    duration_ms: int
    retry_after_ms: int | None = None  # a 429's Retry-After, when it gave seconds
    transient: bool = True  # for errors without an answer: a dropped connection or timeout, not a bad url

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300

    @property
    def retryable(self) -> bool:
        """Worth another try: no answer at all, a server error, or being asked to slow down. Any other
        answer (a 4xx, a redirect) would be the same next time."""
        if self.status_code is None:
            return self.transient
        return self.status_code >= 500 or self.status_code == 429


def _retry_after_ms(response: requests.Response) -> int | None:
    value = response.headers.get("Retry-After", "")
    return int(value) * 1000 if value.isdigit() else None


def post(url: str, token: str, payload: dict[str, Any], the_callback_id: str) -> Outcome:
    """One delivery attempt of the callback named the_callback_id (callback_id()); network failures
    come back as an Outcome, never raised. The address is checked again here
    (pipeline/infrastructure/outbound.py): a row may predate the rules, or its name may point elsewhere
    since it was saved."""
    body = json.dumps(payload, separators=(",", ":")).encode()
    started = time.monotonic()
    problem = outbound.url_problem(url, allow_loopback=outbound.loopback_allowed(), resolver=None)
    if problem:
        return Outcome(None, f"RefusedAddress: url {problem}", _ms_since(started), transient=False)
    try:
        with outbound.session() as session:
            # No redirects: requests would turn a redirected POST into a GET and drop the body.
            # stream: the answer's body is never read, so a receiver answering megabytes costs nothing.
            headers = {**signed_headers(token, body), CALLBACK_ID_HEADER: the_callback_id}
            response = session.post(url, data=body, headers=headers, timeout=TIMEOUT, allow_redirects=False,
                                    stream=True)
            response.close()
    except outbound.RefusedAddress as exc:
        return Outcome(None, f"RefusedAddress: {exc}"[:MAX_ERROR_LENGTH], _ms_since(started), transient=False)
    except requests.RequestException as exc:
        transient = isinstance(exc, (requests.ConnectionError, requests.Timeout))
        return Outcome(None, f"{type(exc).__name__}: {exc}"[:MAX_ERROR_LENGTH], _ms_since(started),
                       transient=transient)
    retry_after = _retry_after_ms(response) if response.status_code == 429 else None
    return Outcome(response.status_code, None, _ms_since(started), retry_after)


def _ms_since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
