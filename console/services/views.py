"""Services: make one (it starts in trial mode, with example templates unless declined), a service's own
page (with a text to yourself in one step while in trial mode), rename it."""
from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, StringField
from wtforms.validators import DataRequired, Length

from console.acting import perform
from console.auth import current_permissions, current_service, current_user, login_required, service_permission_required
from console.send_one.fields import placeholder_fields, send_form
from console.send_one.flow import own_details
from console.services.examples import example_templates
from core.organisations import join_by_domain
from core.service_users import add_creator
from core.services import update_service
from core.templates import create_service_with, current_versions
from models.db import database
from models.service import Service
from models.user import membership, services_of

bp = Blueprint("services", __name__)


class ServiceNameForm(FlaskForm):
    name = StringField(_l("Service name"), validators=[
        DataRequired(_l("Enter a service name")), Length(max=255, message=_l("Use 255 characters or fewer"))])


class NewServiceForm(ServiceNameForm):
    examples = BooleanField(_l("Start with example templates: a text message, an email and a letter, which you "
                               "can change or delete"), default=True)


def _create(name: str, examples: bool) -> Service:
    user = current_user()
    with database.atomic():
        service = create_service_with(name, example_templates(user.name) if examples else ())
        add_creator(service.id, user)
        join_by_domain(service, user.email_address)
    return service


@bp.route("/services/new", methods=["GET", "POST"])
@login_required
def new_service() -> Any:
    form = NewServiceForm()
    if form.validate_on_submit():
        done, service = perform(lambda: _create(form.name.data, form.examples.data), form,
                                confirm=_l("Service made. It starts in trial mode."))
        if done:
            return redirect(url_for("services.service_page", service_id=service.id))
    return render_template("services/new.html", form=form)


def _test_to_yourself(service: Service, permissions: set[str]) -> dict[str, Any] | None:
    """While in trial mode, a member who may send sends themselves the service's first text message
    template from its page: one form, straight to the message's page (the send flow's own send)."""
    user = current_user()
    # A platform admin on another team's page is not that team: trial mode would refuse their number.
    if not service.trial_mode or "send_messages" not in permissions or membership(user, service.id) is None:
        return None
    version = next((v for v in current_versions(str(service.id)) if v.template.template_type == "sms"), None)
    if version is None:
        return None
    own = own_details(service, user, "sms")
    form = send_form(version) if own else None
    return {"version": version, "own": own, "form": form, "send_token": uuid.uuid4(),
            "placeholders": placeholder_fields(form) if form else []}


@bp.get("/services/<service_id>")
@service_permission_required("view_activity")
def service_page(service_id: str) -> Any:
    service, permissions = current_service(), current_permissions()
    return render_template("services/service.html", service=service, permissions=permissions,
                           my_services=services_of(current_user()),
                           test=_test_to_yourself(service, permissions))


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
