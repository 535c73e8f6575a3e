"""Callbacks: where delivery statuses and received texts are posted, with the recent attempts."""
from __future__ import annotations

from typing import Any

from flask import abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import PasswordField, URLField
from wtforms.validators import DataRequired, Length

from console.acting import perform
from console.auth import current_service, service_permission_required
from console.settings.blueprint import bp
from core.callbacks import CALLBACK_KINDS, list_attempts, remove_callback, set_callback
from models.service import ServiceCallback

RECENT_ATTEMPTS = 20
TITLES = {"delivery-status": _l("Callbacks for delivery receipts"),
          "inbound-sms": _l("Callbacks for received text messages")}


class CallbackForm(FlaskForm):
    url = URLField(_l("Web address (URL)"), validators=[DataRequired(_l("Enter a URL")), Length(max=2000)])
    bearer_token = PasswordField(_l("Bearer token"), validators=[
        DataRequired(_l("Enter a bearer token")),
        Length(min=10, max=2000, message=_l("The bearer token must be at least 10 characters"))])


class ConfirmForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


def _kind_or_404(kind: str) -> str:
    # The kinds this page has titles for; the admin API also takes complaint, returned-letter, unsubscribe.
    if kind not in CALLBACK_KINDS or kind not in TITLES:
        abort(404)
    return kind


@bp.route("/services/<service_id>/service-settings/callbacks/<kind>", methods=["GET", "POST"])
@service_permission_required("manage_service")
def callback(service_id: str, kind: str) -> Any:
    _kind_or_404(kind)
    current = ServiceCallback.get_or_none((ServiceCallback.service == service_id) & (ServiceCallback.kind == kind))
    form = CallbackForm(data={"url": current.url if current else None})
    if form.validate_on_submit():
        done, _ = perform(lambda: set_callback(service_id, kind, url=form.url.data.strip(),
                                               bearer_token=form.bearer_token.data), form,
                          confirm=_l("Callback saved"))
        if done:
            return redirect(url_for("settings.callback", service_id=service_id, kind=kind))
    return render_template("settings/callback.html", service=current_service(), kind=kind, title=TITLES[kind],
                           form=form, current=current, attempts=list_attempts(service_id, kind, RECENT_ATTEMPTS),
                           remove_form=ConfirmForm())


@bp.post("/services/<service_id>/service-settings/callbacks/<kind>/remove")
@service_permission_required("manage_service")
def remove(service_id: str, kind: str) -> Any:
    _kind_or_404(kind)
    if ConfirmForm().validate_on_submit():
        perform(lambda: remove_callback(service_id, kind), confirm=_l("Callback removed"))
    return redirect(url_for("settings.callback", service_id=service_id, kind=kind))
