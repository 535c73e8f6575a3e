"""Service settings: the summary page and the settings kept on the service itself (permissions,
send files by email, data retention, limits). Senders and callbacks are in their own modules on
this blueprint."""
from __future__ import annotations

from typing import Any

from flask import abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from console.acting import perform
from console.auth import current_service, current_user, service_permission_required
from console.settings import callbacks, senders  # noqa: F401  (their routes join bp)
from console.settings.blueprint import bp
from console.team.views import PermissionsField
from console.value_names import SERVICE_PERMISSIONS
from core.case_events import link_of
from core.services import LIMITS, MAX_RETENTION_DAYS, is_time_zone, settings_of, update_service
from models.db import utcnow
from models.service import CHANNELS, PERMISSIONS, LetterContact, ReplyToAddress, ServiceCallback, SmsSender, default_of

SERVICE_PERMISSION_LABELS = SERVICE_PERMISSIONS
CHANNEL_LABELS = {"email": _l("Emails"), "sms": _l("Text messages"), "letter": _l("Letters")}
LIMIT_LABELS = {
    "rate_limit": _l("Requests per 60 seconds, per key type"),
    "sms_daily_limit": _l("Text messages per day"),
    "email_daily_limit": _l("Emails per day"),
    "letter_daily_limit": _l("Letters per day"),
    "international_sms_daily_limit": _l("International text messages per day"),
}


class ServicePermissionsForm(FlaskForm):
    permissions = PermissionsField(_l("What this service may do"),
                                   choices=[(p, SERVICE_PERMISSION_LABELS[p]) for p in PERMISSIONS])


class FileContactForm(FlaskForm):
    contact = StringField(_l("Contact details"), validators=[
        Optional(), Length(max=255, message=_l("Use 255 characters or fewer"))])


class TimeZoneForm(FlaskForm):
    time_zone = StringField(_l("Time zone"), validators=[InputRequired(_l("Enter a time zone")), Length(max=64)])

    def validate_time_zone(self, field: StringField) -> None:
        field.data = field.data.strip()
        if not is_time_zone(field.data):
            raise ValidationError(_l("Enter a time zone by its name, such as Europe/Amsterdam or America/Curacao"))


def _days(label: Any) -> IntegerField:
    return IntegerField(label, validators=[
        InputRequired(_l("Enter a number of days")),
        NumberRange(1, MAX_RETENTION_DAYS, _l("Enter a number of days from 1 to %(max)s", max=MAX_RETENTION_DAYS))])


class RetentionForm(FlaskForm):
    email, sms, letter = (_days(CHANNEL_LABELS[c]) for c in CHANNELS)


def _limit(label: Any, minimum: int) -> IntegerField:
    return IntegerField(label, validators=[
        InputRequired(_l("Enter a number")),
        NumberRange(min=minimum, message=_l("Enter a number of %(min)s or more", min=minimum)),
    ])


class LimitsForm(FlaskForm):
    rate_limit = _limit(LIMIT_LABELS["rate_limit"], 1)
    sms_daily_limit = _limit(LIMIT_LABELS["sms_daily_limit"], 0)
    email_daily_limit = _limit(LIMIT_LABELS["email_daily_limit"], 0)
    letter_daily_limit = _limit(LIMIT_LABELS["letter_daily_limit"], 0)
    international_sms_daily_limit = _limit(LIMIT_LABELS["international_sms_daily_limit"], 0)


def _saved(service_id: str, form: FlaskForm, changes: dict[str, Any]) -> bool:
    """Apply the changes through the shared update; True when done (the form holds any refusal)."""
    done, _ = perform(lambda: update_service(service_id, **changes), form, confirm=_l("Settings saved"))
    return done


def _to_index(service_id: str) -> Any:
    return redirect(url_for("settings.index", service_id=service_id))


@bp.get("/services/<service_id>/service-settings")
@service_permission_required("manage_service")
def index(service_id: str) -> Any:
    service = current_service()
    defaults = {name: default_of(model, service) for name, model in
                (("sms", SmsSender), ("reply_to", ReplyToAddress), ("contact", LetterContact))}
    callback_rows = {c.kind: c for c in ServiceCallback.select().where(ServiceCallback.service == service)}
    return render_template("settings/index.html", service=service, settings=settings_of(service),
                           defaults=defaults, callbacks=callback_rows,
                           permission_text=", ".join(str(SERVICE_PERMISSION_LABELS[p])
                                                     for p in service.permissions or []),
                           channel_labels=CHANNEL_LABELS, limit_labels=LIMIT_LABELS,
                           platform_admin=current_user().platform_admin, case_event_link=link_of(service.id))


@bp.route("/services/<service_id>/service-settings/permissions", methods=["GET", "POST"])
@service_permission_required("manage_service")
def permissions(service_id: str) -> Any:
    form = ServicePermissionsForm(data={"permissions": current_service().permissions})
    if form.validate_on_submit() and _saved(service_id, form, {"permissions": form.permissions.data}):
        return _to_index(service_id)
    return render_template("settings/permissions.html", service=current_service(), form=form)


@bp.route("/services/<service_id>/service-settings/send-files-by-email", methods=["GET", "POST"])
@service_permission_required("manage_service")
def send_files_by_email(service_id: str) -> Any:
    form = FileContactForm(data={"contact": current_service().file_download_contact})
    if form.validate_on_submit():
        contact = (form.contact.data or "").strip() or None
        if _saved(service_id, form, {"file_download_contact": contact}):
            return _to_index(service_id)
    return render_template("settings/send_files_by_email.html", service=current_service(), form=form)


@bp.route("/services/<service_id>/service-settings/time-zone", methods=["GET", "POST"])
@service_permission_required("manage_service")
def time_zone(service_id: str) -> Any:
    form = TimeZoneForm(data={"time_zone": current_service().time_zone})
    if form.validate_on_submit() and _saved(service_id, form, {"time_zone": form.time_zone.data}):
        return _to_index(service_id)
    return render_template("settings/time_zone.html", service=current_service(), form=form, now=utcnow())


@bp.route("/services/<service_id>/service-settings/data-retention", methods=["GET", "POST"])
@service_permission_required("manage_service")
def data_retention(service_id: str) -> Any:
    service = current_service()
    form = RetentionForm(data={c: service.retention_days(c) for c in CHANNELS})
    if form.validate_on_submit():
        days = {c: getattr(form, c).data for c in CHANNELS}
        if _saved(service_id, form, {"data_retention_days": days}):
            return _to_index(service_id)
    return render_template("settings/data_retention.html", service=service, form=form)


@bp.route("/services/<service_id>/service-settings/limits", methods=["GET", "POST"])
@service_permission_required("manage_service")
def limits(service_id: str) -> Any:
    if not current_user().platform_admin:
        abort(403)
    service = current_service()
    form = LimitsForm(data={name: getattr(service, name) for name in LIMITS})
    if form.validate_on_submit() and _saved(service_id, form, {name: getattr(form, name).data for name in LIMITS}):
        return _to_index(service_id)
    return render_template("settings/limits.html", service=service, form=form)
