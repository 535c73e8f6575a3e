"""Services: make one (it starts in trial mode), a service's own page, rename it."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import StringField
from wtforms.validators import DataRequired, Length

from console.acting import perform
from console.auth import current_permissions, current_service, current_user, login_required, service_permission_required
from core.organisations import join_by_domain
from core.service_users import add_creator
from core.services import create_service, update_service
from models.db import database
from models.service import Service
from models.user import services_of

bp = Blueprint("services", __name__)


class ServiceNameForm(FlaskForm):
    name = StringField(_l("Service name"), validators=[
        DataRequired(_l("Enter a service name")), Length(max=255, message=_l("Use 255 characters or fewer"))])


def _create(name: str) -> Service:
    with database.atomic():
        service = create_service(name)
        add_creator(service.id, current_user())
        join_by_domain(service, current_user().email_address)
    return service


@bp.route("/services/new", methods=["GET", "POST"])
@login_required
def new_service() -> Any:
    form = ServiceNameForm()
    if form.validate_on_submit():
        done, service = perform(lambda: _create(form.name.data), form,
                                confirm=_l("Service made. It starts in trial mode."))
        if done:
            return redirect(url_for("services.service_page", service_id=service.id))
    return render_template("services/new.html", form=form)


@bp.get("/services/<service_id>")
@service_permission_required("view_activity")
def service_page(service_id: str) -> Any:
    return render_template("services/service.html", service=current_service(), permissions=current_permissions(),
                           my_services=services_of(current_user()))


@bp.route("/services/<service_id>/service-settings/name", methods=["GET", "POST"])
@service_permission_required("manage_service")
def rename(service_id: str) -> Any:
    service = current_service()
    form = ServiceNameForm(data={"name": service.name})
    if form.validate_on_submit():
        done, _ = perform(lambda: update_service(service_id, name=form.name.data), form,
                          confirm=_l("Service renamed"))
        if done:
            return redirect(url_for("settings.index", service_id=service_id))
    return render_template("services/rename.html", form=form, service=service)
