"""What became of each case event, newest first, and one case's events on a page of their own: the
status, the scenario, the outcome in words, the message sent (a link to it) and the klantcontact. An
event that ended without a message can be tried again once its cause is put right."""
from __future__ import annotations

from typing import Any

from flask import abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm

from console.acting import perform
from console.auth import current_permissions, current_service, service_permission_required
from console.case_events import words
from console.case_events.blueprint import bp
from core import case_events
from models.case_event import CaseEvent

PAGE_SIZE = 100
ZAAK_LENGTH = 40


class RetryForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


def _rows(found: list[CaseEvent]) -> list[dict[str, Any]]:
    return [{"event": event, "outcome": words.outcome(event),
             "scenario": words.SCENARIOS.get(event.scenario or "", ""),
             "contact": words.contact(event),
             "retryable": event.state in case_events.RETRYABLE} for event in found]


@bp.get("/services/<service_id>/case-events")
@service_permission_required("view_activity")
def index(service_id: str) -> Any:
    found = case_events.list_events(service_id, limit=PAGE_SIZE)
    return render_template("case_events/events.html", service=current_service(), rows=_rows(found),
                           linked=case_events.link_of(service_id) is not None, zaak=None,
                           may_retry="manage_service" in current_permissions(), form=RetryForm())


@bp.get("/services/<service_id>/case-events/cases/<zaak>")
@service_permission_required("view_activity")
def case(service_id: str, zaak: str) -> Any:
    if len(zaak) > ZAAK_LENGTH:
        abort(404)
    found = case_events.list_events(service_id, zaak=zaak, limit=PAGE_SIZE)
    if not found:
        abort(404)
    return render_template("case_events/events.html", service=current_service(), rows=_rows(found), linked=True,
                           zaak=zaak, may_retry="manage_service" in current_permissions(), form=RetryForm())


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
