"""API keys: create one (its key shown once, with an optional last day), list them with who made them,
when they were last used and when they expire, rotate one (a new key; the old one works on for the
chosen overlap), revoke one. Keys about to expire are named on this page and the dashboard."""
from __future__ import annotations

import datetime
from typing import Any

from flask import Blueprint, abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import DateField, RadioField, StringField
from wtforms.validators import DataRequired, Length, Optional, ValidationError as FieldError

from console import times
from console.acting import perform
from console.auth import current_service, service_permission_required
from core.keys import create_key, end_of_day, expiring_keys, find_key, in_use, revoke_key, rotate_key
from models.api_key import ApiKey
from models.db import utcnow
from pipeline.domain.errors import NoResultFound, ValidationError

bp = Blueprint("api_keys", __name__)

OVERLAPS = {"0": datetime.timedelta(0), "1h": datetime.timedelta(hours=1), "1d": datetime.timedelta(days=1),
            "7d": datetime.timedelta(days=7), "30d": datetime.timedelta(days=30)}


def _future_day(form: FlaskForm, field: DateField) -> None:
    if field.data and end_of_day(field.data, times.zone_name()) <= utcnow():
        raise FieldError(_l("Enter today's date or a date in the future"))


def _last_day() -> DateField:
    return DateField(_l("Last day the key works (optional)"), validators=[Optional(), _future_day])


class CreateKeyForm(FlaskForm):
    name = StringField(_l("Name for this key"), validators=[
        DataRequired(_l("Enter a name for this key")), Length(max=255, message=_l("Use 255 characters or fewer"))])
    key_type = RadioField(_l("Type of key"), choices=[
        ("live", _l("Live – sends to anyone (once the service is live)")),
        ("team", _l("Team and guest list – sends only to your team and guest list")),
        ("test", _l("Test – pretends to send messages"))],
        validators=[DataRequired(_l("Choose a type of key"))])
    last_day = _last_day()


class RotateKeyForm(FlaskForm):
    overlap = RadioField(_l("How long should the old key keep working?"), default="1d", choices=[
        ("0", _l("Stop it now")), ("1h", _l("1 hour")), ("1d", _l("1 day")), ("7d", _l("7 days")),
        ("30d", _l("30 days"))], validators=[DataRequired(_l("Choose how long the old key keeps working"))])
    last_day = _last_day()


class ConfirmForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


def _expiry(form: CreateKeyForm | RotateKeyForm) -> datetime.datetime | None:
    return end_of_day(form.last_day.data, times.zone_name()) if form.last_day.data else None


@bp.app_context_processor
def _expiry_warnings() -> dict[str, Any]:
    # A function, so only the pages that show the warning (this area's and the dashboard) query.
    return {"expiring_api_keys": lambda service: expiring_keys(str(service.id))}


def _key(service_id: str, key_id: str) -> ApiKey:
    try:
        return find_key(service_id, key_id)
    except (NoResultFound, ValidationError):  # a page for a malformed id is as missing as an unknown one
        abort(404)


@bp.get("/services/<service_id>/api-keys")
@service_permission_required("manage_api_keys")
def index(service_id: str) -> Any:
    keys = ApiKey.select().where(ApiKey.service == service_id).order_by(ApiKey.revoked_at.is_null(False),
                                                                       ApiKey.created_at.desc())
    return render_template("api_keys/index.html", service=current_service(), keys=list(keys), now=utcnow())


@bp.route("/services/<service_id>/api-keys/create", methods=["GET", "POST"])
@service_permission_required("manage_api_keys")
def create(service_id: str) -> Any:
    form = CreateKeyForm()
    if form.validate_on_submit():
        done, created = perform(lambda: create_key(service_id, name=form.name.data.strip(),
                                                   key_type=form.key_type.data, expires_at=_expiry(form)), form,
                                confirm=_l("API key made"))
        if done:
            key, secret = created
            # Answered here, never stored: the key is shown this once.
            return render_template("api_keys/show.html", service=current_service(), key=key, secret=secret)
    return render_template("api_keys/create.html", service=current_service(), form=form)


@bp.route("/services/<service_id>/api-keys/<key_id>/rotate", methods=["GET", "POST"])
@service_permission_required("manage_api_keys")
def rotate(service_id: str, key_id: str) -> Any:
    key = _key(service_id, key_id)
    form = RotateKeyForm()
    if in_use(key) and form.validate_on_submit():
        done, rotated = perform(lambda: rotate_key(service_id, key_id, overlap=OVERLAPS[form.overlap.data],
                                                   expires_at=_expiry(form)), form,
                                confirm=_l("API key replaced"))
        if done:
            old, new, secret = rotated
            return render_template("api_keys/show.html", service=current_service(), key=new, secret=secret,
                                   replaced=old)
    return render_template("api_keys/rotate.html", service=current_service(), key=key, form=form,
                           usable=in_use(key))


@bp.route("/services/<service_id>/api-keys/<key_id>/revoke", methods=["GET", "POST"])
@service_permission_required("manage_api_keys")
def revoke(service_id: str, key_id: str) -> Any:
    key = _key(service_id, key_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        done, _ = perform(lambda: revoke_key(service_id, key_id), form,
                          confirm=_l("API key %(name)s revoked: it no longer works", name=key.name))
        if done:
            return redirect(url_for("api_keys.index", service_id=service_id))
    return render_template("api_keys/revoke.html", service=current_service(), key=key, form=form)

