"""Going live: a service member's request from the checklist, a platform admin's decision."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import IntegerField, TextAreaField
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from console.acting import perform, user_actor
from console.auth import current_service, current_user, platform_admin_required, service_permission_required
from console.services.refusals import Words, fixed, in_words, translated
from core.go_live import (
    GoLiveStatus,
    approve_go_live,
    go_live_status,
    reject_go_live,
    request_go_live,
)
from core.services import find_service
from models import audit
from models.go_live import GoLiveRequest
from models.service import Service
from pipeline.domain.errors import NoResultFound, ValidationError
from workers.platform_email import send_platform_email

bp = Blueprint("go_live", __name__)
T = TypeVar("T")

CHECKLIST_LABELS = {
    "reply_to_address": _l("A reply-to email address"),
    "template": _l("A template with an example of what you will send"),
    "team_member": _l("A team member other than you"),
}


# The refusals of the two-step go-live, in the page's language; any other as the service pages show it.
WORDS: dict[str, Words] = {
    "go_live_answers_needed": fixed(_l("Say how many messages you expect per channel and who receives them")),
    "go_live_awaits_organisation": fixed(_l("The organisation's admin has not approved this request yet")),
}


def _translated(message: str) -> str:
    return in_words(message, WORDS) or translated(message)


def _perform(operation: Callable[[], T], form: FlaskForm, confirm: object) -> tuple[bool, T | None]:
    return perform(operation, form, translate=_translated, confirm=confirm)


class ConfirmForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


def _volume(label: str) -> IntegerField:
    return IntegerField(label, validators=[Optional(), NumberRange(min=0, max=2**31 - 1, message=_l(
        "Enter a whole number of messages"))])


class RequestForm(FlaskForm):
    """The team's answers the organisation's admin judges the request by."""
    email_volume = _volume(_l("Emails a year"))
    sms_volume = _volume(_l("Text messages a year"))
    letter_volume = _volume(_l("Letters a year"))
    recipients = TextAreaField(_l("Who receives the messages"), validators=[Length(max=2000)])

    def answers(self) -> dict[str, object]:
        volumes = {"email": self.email_volume.data, "sms": self.sms_volume.data, "letter": self.letter_volume.data}
        return {"expected_volumes": {c: n for c, n in volumes.items() if n is not None},
                "recipients": self.recipients.data}


class RejectForm(FlaskForm):
    reason = TextAreaField(_l("Why the service cannot go live yet"), validators=[
        DataRequired(_l("Enter the reason, it is sent to the service's team")), Length(max=2000)])


def _status(service_id: str) -> GoLiveStatus:
    with audit.acting_as(user_actor(current_user())):  # the checklist depends on who asks
        return go_live_status(service_id)


@bp.route("/services/<service_id>/service-settings/request-to-go-live", methods=["GET", "POST"])
@service_permission_required("manage_service")
def request_page(service_id: str) -> Any:
    form = RequestForm()
    if form.validate_on_submit():
        done, _ = _perform(lambda: request_go_live(service_id, send_email=send_platform_email, **form.answers()), form,
                           _l("You asked to go live. You hear the decision by email."))
        if done:
            return redirect(url_for("go_live.request_page", service_id=service_id))
    return render_template("go_live/request.html", service=current_service(), status=_status(service_id),
                           labels=CHECKLIST_LABELS, form=form)


@bp.get("/platform-admin/go-live-requests")
@platform_admin_required
def requests() -> Any:
    # A request its organisation's admin has not approved yet is not the platform admin's to decide.
    pending = (GoLiveRequest.select(GoLiveRequest, Service).join(Service)
               .where((GoLiveRequest.status == "pending") & (GoLiveRequest.organisation_id.is_null()
                                                             | GoLiveRequest.organisation_approved_at.is_null(False)))
               .order_by(GoLiveRequest.requested_at))
    return render_template("go_live/requests.html", pending=list(pending))


def _service_or_404(service_id: str) -> Service:
    try:
        return find_service(service_id)
    except (NoResultFound, ValidationError):  # a malformed id names no service either
        abort(404)


def _decide_page(service: Service, approve_form: FlaskForm, reject_form: FlaskForm) -> Any:
    return render_template("go_live/decide.html", service=service, status=_status(str(service.id)),
                           labels=CHECKLIST_LABELS, approve_form=approve_form, reject_form=reject_form)


@bp.get("/platform-admin/services/<service_id>/go-live")
@platform_admin_required
def decide(service_id: str) -> Any:
    return _decide_page(_service_or_404(service_id), ConfirmForm(), RejectForm())


@bp.post("/platform-admin/services/<service_id>/go-live/approve")
@platform_admin_required
def approve(service_id: str) -> Any:
    service, form = _service_or_404(service_id), ConfirmForm()
    if form.validate_on_submit():
        done, _ = _perform(lambda: approve_go_live(service_id, send_email=send_platform_email), form,
                           _l("%(service)s is live; its team has been told by email", service=service.name))
        if done:
            return redirect(url_for("go_live.requests"))
    return _decide_page(service, form, RejectForm(formdata=None))


@bp.post("/platform-admin/services/<service_id>/go-live/reject")
@platform_admin_required
def reject(service_id: str) -> Any:
    service, form = _service_or_404(service_id), RejectForm()
    if form.validate_on_submit():
        done, _ = _perform(lambda: reject_go_live(service_id, form.reason.data, send_email=send_platform_email), form,
                           _l("The request of %(service)s was turned down; its team has been told by email",
                              service=service.name))
        if done:
            return redirect(url_for("go_live.requests"))
    return _decide_page(service, ConfirmForm(formdata=None), form)
