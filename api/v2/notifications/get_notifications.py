from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from flask import Response, g, jsonify, request

from api.openapi import documented
from api.schema import validate
from api.v2.blueprint import v2_blueprint
from api.v2.notifications.notification_schemas import get_notifications_query, notifications_page_response
from api.v2.notifications.serialise import notification_json, page_links
from models.queries import NotificationFilters, notifications_page
from pipeline.domain.statuses import FILTER_VALUES, LETTER_PUBLIC
from pipeline.stages.fallback import links

REPEATABLE = ("status", "template_type")
# "accepted" and "received" are names only letters are shown with, so only letters match them: an email
# in `sending` is not "accepted".
LETTER_ONLY_FILTERS = frozenset(LETTER_PUBLIC.values())
# The Python client sends include_jobs=True as "True" (str(True)); the others send "true". Any other
# value leaves the jobs' rows out, as a missing one does.
TRUE_VALUES = frozenset({"true", "1"})


def given_query() -> list[tuple[str, str]]:
    """The query string's pairs in the order given, without empty values (the spec ignores those)."""
    return [(key, value) for key, value in request.args.items(multi=True) if value]


def query_dict(pairs: list[tuple[str, str]], repeatable: tuple[str, ...] = ()) -> dict[str, Any]:
    """Repeatable keys as lists of every value; other keys keep their first value, as Notify does."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in repeatable:
            data.setdefault(key, []).append(value)
        else:
            data.setdefault(key, value)
    return data


def cursor(data: dict[str, Any]) -> uuid.UUID | None:
    # The clients send older_than; the spec's links name it other_than. Either is the cursor.
    value = data.get("older_than") or data.get("other_than")
    return uuid.UUID(value) if value else None


def _expand(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(status for name in names for status in FILTER_VALUES[name]))


@v2_blueprint.get("/notifications")
@documented("A page of the service's notifications sent with the caller's key type, newest first.",
            {200: notifications_page_response}, query=get_notifications_query)
def get_notifications() -> Response:
    pairs = given_query()
    data = validate(get_notifications_query, query_dict(pairs, REPEATABLE))
    names = data.get("status", [])
    channels = tuple(dict.fromkeys(data.get("template_type", [])))
    filters = NotificationFilters(
        statuses=_expand(name for name in names if name not in LETTER_ONLY_FILTERS),
        letter_statuses=_expand(name for name in names if name in LETTER_ONLY_FILTERS),
        notification_types=channels,
        reference=data.get("reference"),
        include_jobs=data.get("include_jobs", "").lower() in TRUE_VALUES,
    )
    caller = g.caller
    rows = notifications_page(caller.service, caller.key_type, filters, cursor(data))
    chained = links(row.id for row in rows)
    return jsonify({
        "notifications": [notification_json(row, chained.get(row.id)) for row in rows],
        "links": page_links("/v2/notifications", pairs, rows[-1].id if rows else None),
    })
