"""One-click unsubscribe hosted by us (RFC 8058), for services that ask for it.

An email sent without a `one_click_unsubscribe_url` of its own, by a service with `hosted_unsubscribe`
on, carries our link in List-Unsubscribe. The link names the notification and carries a signature
of its id (keyed with SECRET_KEY), so it needs no login and cannot be made up for another email. A
recipient's POST to it is recorded once per notification and reported to the service (its
`unsubscribe` callback and a downloadable report).
"""
from __future__ import annotations

from collections.abc import Iterable

from itsdangerous import BadSignature, Signer

from config import get_settings
from models.notification import Notification
from models.notification_event import UNSUBSCRIBE, NotificationEvent
from models.service import Service
from pipeline.domain.csv_output import csv_text
from pipeline.stages import notification_events

REPORT_COLUMNS = ("email_address", "notification_id", "reference", "template_id", "template_version", "sent_at",
                  "requested_at")


def _signer() -> Signer:
    return Signer(get_settings().secret_key, salt="one-click-unsubscribe")


def token_for(notification_id: str) -> str:
    return _signer().get_signature(str(notification_id)).decode()


def token_matches(notification_id: str, token: str) -> bool:
    try:
        return _signer().verify_signature(str(notification_id).encode(), token.encode())
    except BadSignature:
        return False


def hosted_url(service: Service, notification_id: str) -> str | None:
    """Our link for this email, when the service has asked us to host its unsubscribe requests."""
    if not service.hosted_unsubscribe:
        return None
    return f"{get_settings().base_url}/unsubscribe/{notification_id}/{token_for(notification_id)}"


def record_request(notification: Notification) -> NotificationEvent | None:
    """Record the recipient's request; None when this email's request was recorded before."""
    return notification_events.record(notification, UNSUBSCRIBE)


def report_csv(events: Iterable[NotificationEvent]) -> str:
    """The service's downloadable report of unsubscribe requests."""
    rows: list[list[object]] = [list(REPORT_COLUMNS)]
    for event in events:
        detail = event.detail or {}
        rows.append([detail.get("to"), event.notification_id, detail.get("reference"), detail.get("template_id"),
                     detail.get("template_version") or "", detail.get("sent_at"), event.occurred_at.isoformat()])
    return csv_text(rows)
