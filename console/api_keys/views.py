"""API keys: create one (its key shown once), list them with who made them and when they were
last used, revoke one."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import RadioField, StringField
from wtforms.validators import DataRequired, Length

from console.acting import perform
from console.auth import current_service, service_permission_required
from core.keys import create_key, find_key, revoke_key
from models.api_key import ApiKey
from pipeline.errors import NoResultFound, ValidationError

bp = Blueprint("api_keys", __name__)


class CreateKeyForm(FlaskForm):
    name = StringField(_l("Name for this key"), validators=[
        DataRequired(_l("Enter a name for this key")), Length(max=255, message=_l("Use 255 characters or fewer"))])
    key_type = RadioField(_l("Type of key"), choices=[
        ("live", _l("Live – sends to anyone (once the service is live)")),
        ("team", _l("Team and guest list – sends only to your team and guest list")),
        ("test", _l("Test – pretends to send messages"))],
        validators=[DataRequired(_l("Choose a type of key"))])


class ConfirmForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


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
    return render_template("api_keys/index.html", service=current_service(), keys=list(keys))


@bp.route("/services/<service_id>/api-keys/create", methods=["GET", "POST"])
@service_permission_required("manage_api_keys")
def create(service_id: str) -> Any:
    form = CreateKeyForm()
    if form.validate_on_submit():
        done, created = perform(lambda: create_key(service_id, name=form.name.data.strip(),
                                                   key_type=form.key_type.data), form)
        if done:
            key, secret = created
            # Answered here, never stored: the key is shown this once.
            return render_template("api_keys/show.html", service=current_service(), name=key.name, secret=secret)
    return render_template("api_keys/create.html", service=current_service(), form=form)


@bp.route("/services/<service_id>/api-keys/<key_id>/revoke", methods=["GET", "POST"])
@service_permission_required("manage_api_keys")
def revoke(service_id: str, key_id: str) -> Any:
    key = _key(service_id, key_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        done, _ = perform(lambda: revoke_key(service_id, key_id), form)
        if done:
            return redirect(url_for("api_keys.index", service_id=service_id))
    return render_template("api_keys/revoke.html", service=current_service(), key=key, form=form)
