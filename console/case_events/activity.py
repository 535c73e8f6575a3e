"""What became of each case event, newest first, and one case's events on a page of their own: the
status, the scenario, the outcome in words, the message sent (a link to it) and the klantcontact. An
event that ended without a message can be tried again once its cause is put right."""
from __future__ import annotations

import uuid
from typing import Any

from flask import abort, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm

from console.acting import perform
from console.auth import current_permissions, current_service, service_permission_required
from console.case_events import words
from console.case_events.blueprint import bp
from core import case_events
from models.case_event import CaseEvent
from models.db import is_uuid

PAGE_SIZE = 50
ZAAK_LENGTH = 40  # a case's identificatie (Zaken API)


class RetryForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


def _rows(found: list[CaseEvent]) -> list[dict[str, Any]]:
    return [{"event": event, "outcome": words.outcome(event),
             "scenario": words.SCENARIOS.get(event.scenario or "", ""), "contact": words.contact(event),
             "retryable": event.state in case_events.RETRYABLE} for event in found]


def _page(service_id: str, zaak: str | None) -> Any:
    """A page of events newest first, after the event named by older_than (as the message list pages)."""
    older_than = request.args.get("older_than", "")
    found = case_events.list_events(service_id, zaak=zaak, limit=PAGE_SIZE,
                                    older_than=uuid.UUID(older_than) if is_uuid(older_than) else None)
    if zaak is not None and not found and not older_than:
        abort(404)
    return render_template("case_events/events.html", service=current_service(), rows=_rows(found),
                           linked=zaak is not None or case_events.link_of(service_id) is not None, zaak=zaak,
                           next_cursor=found[-1].id if len(found) == PAGE_SIZE else None,
                           may_retry="manage_service" in current_permissions(), form=RetryForm())


@bp.get("/services/<service_id>/case-events")
@service_permission_required("view_activity")
def index(service_id: str) -> Any:
    return _page(service_id, None)


@bp.get("/services/<service_id>/case-events/case")
@service_permission_required("view_activity")
def case(service_id: str) -> Any:
    """One case's events, the case named in the query (?zaak=<identificatie>): an identificatie may hold
    any character, "/", "?", "#" and "%" among them, which a path segment cannot carry (a browser
    resolves "a/../b" before asking), and a query string can."""
    zaak = request.args.get("zaak", "")
    if not zaak or len(zaak) > ZAAK_LENGTH:
        abort(404)
    return _page(service_id, zaak)


@bp.post("/services/<service_id>/case-events/<event_id>/retry")
@service_permission_required("manage_service")
def retry(service_id: str, event_id: str) -> Any:
    event = None
    if RetryForm().validate_on_submit():
        _, event = perform(lambda: case_events.retry_event(service_id, event_id), translate=words.refusal,
                           confirm=_l("The event is processed again"))
    if event is not None and event.zaak_identificatie:
        return redirect(url_for("case_events.case", service_id=service_id, zaak=event.zaak_identificatie))
    return redirect(url_for("case_events.index", service_id=service_id))
