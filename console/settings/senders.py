"""SMS senders, reply-to addresses and letter contact blocks: list, add, edit, make default."""
from __future__ import annotations

from typing import Any

from flask import abort, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length

from console.acting import perform
from console.auth import current_service, service_permission_required
from console.redirect_target import is_same_site
from console.settings.blueprint import bp
from core.senders import KINDS, add_setting, find_setting, list_settings, update_setting
from pipeline.domain.errors import NoResultFound, ValidationError

# kind (as in the admin API) -> page title, value label, whether the value takes several lines
PAGES = {
    "sms-senders": (_l("Text message senders"), _l("Text message sender"), False),
    "reply-to-addresses": (_l("Reply-to email addresses"), _l("Reply-to email address"), False),
    "letter-contacts": (_l("Letter contact blocks"), _l("Letter contact block"), True),
}


def _form(kind: str, data: dict[str, Any] | None = None) -> FlaskForm:
    _title, label, multiline = PAGES[kind]
    field = TextAreaField if multiline else StringField

    class SenderForm(FlaskForm):
        value = field(label, validators=[DataRequired(_l("Enter a value")), Length(max=1000)])
        is_default = BooleanField(_l("Make this the default"))

    return SenderForm(data=data)


def _value(form: FlaskForm) -> str:
    # Browsers send a text area's line breaks as CRLF; contact blocks are stored with LF.
    return form.value.data.replace("\r\n", "\n")


def _kind_or_404(kind: str) -> str:
    if kind not in PAGES:
        abort(404)
    return kind


@bp.get("/services/<service_id>/service-settings/<kind>")
@service_permission_required("manage_service")
def senders(service_id: str, kind: str) -> Any:
    _kind_or_404(kind)
    field = KINDS[kind].field
    return render_template("settings/senders.html", service=current_service(), kind=kind, title=PAGES[kind][0],
                           rows=[(row, getattr(row, field)) for row in list_settings(kind, service_id)])


@bp.route("/services/<service_id>/service-settings/<kind>/add", methods=["GET", "POST"])
@service_permission_required("manage_service")
def add_sender(service_id: str, kind: str) -> Any:
    _kind_or_404(kind)
    # The page that sent the user here (the go-live checklist) is where they go on from, when it is ours.
    back = request.args.get("next") if is_same_site(request.args.get("next")) else None
    form = _form(kind)
    if form.validate_on_submit():
        done, _ = perform(lambda: add_setting(kind, service_id, value=_value(form), is_default=form.is_default.data),
                          form, confirm=_l("Saved"))
        if done:
            return redirect(back or url_for("settings.senders", service_id=service_id, kind=kind))
    return render_template("settings/sender_form.html", service=current_service(), kind=kind, form=form,
                           title=PAGES[kind][1], row=None, back=back)


@bp.route("/services/<service_id>/service-settings/<kind>/<setting_id>/edit", methods=["GET", "POST"])
@service_permission_required("manage_service")
def edit_sender(service_id: str, kind: str, setting_id: str) -> Any:
    _kind_or_404(kind)
    try:
        row = find_setting(kind, service_id, setting_id)
    except (NoResultFound, ValidationError):  # a malformed id names no setting either
        abort(404)
    form = _form(kind, {"value": getattr(row, KINDS[kind].field), "is_default": row.is_default})
    if form.validate_on_submit():
        # Unticking the default does not unset it: a service keeps one default, replaced by another.
        done, _ = perform(lambda: update_setting(kind, service_id, setting_id, value=_value(form),
                                                 is_default=True if form.is_default.data else None), form,
                          confirm=_l("Saved"))
        if done:
            return redirect(url_for("settings.senders", service_id=service_id, kind=kind))
    return render_template("settings/sender_form.html", service=current_service(), kind=kind, form=form,
                           title=PAGES[kind][1], row=row)
