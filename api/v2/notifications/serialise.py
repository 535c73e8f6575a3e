"""The Notification resource as the clients read it, and the links of paged reads."""
from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from config import get_settings
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.organisation import rate_table_of
from models.prices import letter_cost, sms_cost
from pipeline.domain.formatting import iso
from pipeline.domain.statuses import public_status

ADDRESS_LINES = 7
# Precompiled letters have no template of their own; like Notify's hidden precompiled template they
# report one fixed template id, because the clients (Java strictly) need template.id and template.uri.
PRECOMPILED_TEMPLATE_ID = uuid.uuid5(uuid.NAMESPACE_URL, "notify:precompiled-letter")
CURSOR_NAMES = ("older_than", "other_than")


def template_uri(template_id: uuid.UUID | str, version: int) -> str:
    # Absolute, as Notify's url_for(_external=True) makes it, in the spec's /v2/template/<id>/<version> shape.
    return f"{get_settings().base_url}/v2/template/{template_id}/{version}"


def notification_json(notification: Notification, link: NotificationFallback | None = None) -> dict[str, Any]:
    """The resource; link: the notification's place in a fallback chain (pipeline.stages.fallback.links)."""
    kind = notification.notification_type
    lines, postcode = _address(notification)
    template_id = notification.template_id or PRECOMPILED_TEMPLATE_ID
    version = notification.template_version or 1
    ready, cost, details = _cost(notification)
    return {
        "id": str(notification.id),
        "reference": notification.reference,
        "email_address": notification.to if kind == "email" else None,
        "phone_number": notification.to if kind == "sms" else None,
        **{f"line_{n}": line for n, line in enumerate(lines, start=1)},
        "postcode": postcode,
        "postage": notification.postage if kind == "letter" else None,
        "type": kind,
        "status": public_status(kind, notification.status),
        "template": {"id": str(template_id), "version": version, "uri": template_uri(template_id, version)},
        "body": notification.body or "",  # the Java client needs a string even before rendering
        "subject": notification.subject if kind != "sms" else None,
        "created_at": iso(notification.created_at),
        "created_by_name": notification.created_by_name,
        "sent_at": iso(notification.sent_at),
        "completed_at": iso(notification.completed_at),
        "scheduled_for": iso(notification.scheduled_for),
        "one_click_unsubscribe": notification.one_click_unsubscribe_url if kind == "email" else None,
        "is_cost_data_ready": ready,
        "cost_in_pounds": cost,
        "cost_details": details,
        # Extensions (issue 44): the message this one stands in for, the one sent instead of this one.
        "fallback_for": str(link.fallback_for) if link is not None and link.fallback_for else None,
        "fallback_sent_as": str(link.sent_as) if link is not None and link.sent_as else None,
    }


def _address(notification: Notification) -> tuple[list[str | None], str | None]:
    if notification.notification_type != "letter":
        return [None] * ADDRESS_LINES, None
    address = notification.address or {}
    # Rows without the structured address (precompiled letters) still hold the joined lines in `to`.
    lines = [line for line in (address.get("lines") or notification.to.splitlines()) if line.strip()]
    return (lines + [None] * ADDRESS_LINES)[:ADDRESS_LINES], address.get("postcode")


def _cost(notification: Notification) -> tuple[bool, float | None, dict[str, Any]]:
    """(is_cost_data_ready, cost_in_pounds, cost_details). Emails are free, so always ready."""
    kind, units = notification.notification_type, notification.billable_units
    if kind == "email":
        return True, 0.0, {}
    if units is None:
        return False, None, {}
    if kind == "sms":
        multiplier = notification.rate_multiplier or 1
        priced = sms_cost(units, multiplier, notification.created_at, rate_table_of(notification.service_id))
        if priced is None:
            return False, None, {}
        details = {"billable_sms_fragments": units, "international_rate_multiplier": multiplier,
                   "sms_rate": priced[1]}
        return True, priced[0], details
    cost = letter_cost(notification.postage or "", units, notification.created_at,
                       rate_table_of(notification.service_id))
    if cost is None:
        return False, None, {}
    return True, cost, {"billable_sheets_of_paper": units, "postage": notification.postage}


def page_links(path: str, query: Iterable[tuple[str, str]], last_id: object | None) -> dict[str, str]:
    """links.current: the query as given; links.next (non-empty pages only): the same filters after
    the last id. The cursor goes first in `next`: the clients take the first UUID in that link, and a
    reference may itself look like a UUID."""
    base = f"{get_settings().base_url}{path}"
    pairs = list(query)
    links = {"current": f"{base}?{urlencode(pairs)}" if pairs else base}
    if last_id is not None:
        rest = [(k, v) for k, v in pairs if k not in CURSOR_NAMES]
        links["next"] = f"{base}?{urlencode([('older_than', str(last_id)), *rest])}"
    return links
