"""Team: invite members with a role, change what they may do, remove them; the guest list."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import EmailField, SelectMultipleField, StringField, widgets
from wtforms.validators import DataRequired, Email, Length

from console.acting import perform
from console.auth import current_service, current_user, service_permission_required
from console.value_names import MEMBER_PERMISSIONS
from core.service_users import (
    change_permissions,
    invite_member,
    members_of,
    remove_member,
    resend_invitation,
    waiting_invitations,
    withdraw_invitation,
)
from core.team import add_guest, list_guests, remove_guest
from models.user import SERVICE_PERMISSIONS
from pipeline.domain.recipients import written_phone_number

bp = Blueprint("team", __name__)

PERMISSION_LABELS = MEMBER_PERMISSIONS


class PermissionsField(SelectMultipleField):
    widget = widgets.ListWidget(prefix_label=False)
    option_widget = widgets.CheckboxInput()


def _permissions_field() -> PermissionsField:
    return PermissionsField(_l("Permissions"), choices=[(p, PERMISSION_LABELS[p]) for p in SERVICE_PERMISSIONS])


class InviteForm(FlaskForm):
    email_address = EmailField(_l("Email address"), validators=[
        DataRequired(_l("Enter an email address")), Email(_l("Enter a valid email address"))])
    permissions = _permissions_field()


class PermissionsForm(FlaskForm):
    permissions = _permissions_field()


class GuestForm(FlaskForm):
    recipient = StringField(_l("Email address or mobile number"), validators=[
        DataRequired(_l("Enter an email address or mobile number")), Length(max=255)])


class ConfirmForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


def _member_or_404(service_id: str, user_id: str) -> Any:
    member = next((m for m in members_of(service_id) if str(m.user_id) == user_id), None)
    if member is None:
        abort(404)
    return member


@bp.get("/services/<service_id>/users")
@service_permission_required("manage_service")
def index(service_id: str) -> Any:
    return render_template("team/index.html", service=current_service(), members=members_of(service_id),
                           invitations=waiting_invitations(service_id), labels=PERMISSION_LABELS,
                           confirm_form=ConfirmForm())


@bp.route("/services/<service_id>/users/invite", methods=["GET", "POST"])
@service_permission_required("manage_service")
def invite(service_id: str) -> Any:
    form = InviteForm(data={"permissions": ["view_activity"]})
    if form.validate_on_submit():
        done, _ = perform(lambda: invite_member(service_id, form.email_address.data, form.permissions.data,
                                                current_user()), form,
                          confirm=_l("Invitation sent to %(email)s. They join the team once they accept it.",
                                     email=form.email_address.data.strip().lower()))
        if done:
            return redirect(url_for("team.index", service_id=service_id))
    return render_template("team/invite.html", service=current_service(), form=form)


@bp.route("/services/<service_id>/users/<user_id>/edit", methods=["GET", "POST"])
@service_permission_required("manage_service")
def edit(service_id: str, user_id: str) -> Any:
    member = _member_or_404(service_id, user_id)
    form = PermissionsForm(data={"permissions": member.permissions})
    if form.validate_on_submit():
        done, _ = perform(lambda: change_permissions(service_id, member.user_id, form.permissions.data), form,
                          confirm=_l("Permissions of %(email)s changed", email=member.user.email_address))
        if done:
            return redirect(url_for("team.index", service_id=service_id))
    return render_template("team/edit.html", service=current_service(), member=member, form=form)


@bp.route("/services/<service_id>/users/<user_id>/remove", methods=["GET", "POST"])
@service_permission_required("manage_service")
def remove(service_id: str, user_id: str) -> Any:
    member = _member_or_404(service_id, user_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        done, _ = perform(lambda: remove_member(service_id, member.user_id), form,
                          confirm=_l("%(email)s removed from the team", email=member.user.email_address))
        if done:
            return redirect(url_for("team.index", service_id=service_id))
    return render_template("team/remove.html", service=current_service(), member=member, form=form)


@bp.route("/services/<service_id>/guest-list", methods=["GET", "POST"])
@service_permission_required("manage_service")
def guest_list(service_id: str) -> Any:
    form = GuestForm()
    if form.validate_on_submit():
        done, _ = perform(lambda: add_guest(service_id, form.recipient.data), form,
                          confirm=_l("%(recipient)s added to the guest list",
                                     recipient=written_phone_number(form.recipient.data)))
        if done:
            return redirect(url_for("team.guest_list", service_id=service_id))
    return render_template("team/guest_list.html", service=current_service(), form=form,
                           guests=list_guests(service_id), remove_form=ConfirmForm())


@bp.post("/services/<service_id>/guest-list/<entry_id>/remove")
@service_permission_required("manage_service")
def remove_guest_entry(service_id: str, entry_id: str) -> Any:
    if entry_id not in {str(g.id) for g in list_guests(service_id)}:
        abort(404)
    if ConfirmForm().validate_on_submit():
        perform(lambda: remove_guest(service_id, entry_id), confirm=_l("Removed from the guest list"))
    return redirect(url_for("team.guest_list", service_id=service_id))


def _invitation_or_404(service_id: str, invitation_id: str) -> Any:
    found = next((i for i in waiting_invitations(service_id) if str(i.id) == invitation_id), None)
    if found is None:
        abort(404)
    return found


@bp.post("/services/<service_id>/users/invitations/<invitation_id>/resend")
@service_permission_required("manage_service")
def resend(service_id: str, invitation_id: str) -> Any:
    invitation = _invitation_or_404(service_id, invitation_id)
    if ConfirmForm().validate_on_submit():
        perform(lambda: resend_invitation(service_id, invitation.id, current_user()),
                confirm=_l("Invitation sent again to %(email)s, with a new link valid for 2 days. "
                           "The link sent before no longer works.", email=invitation.email_address))
    return redirect(url_for("team.index", service_id=service_id))


@bp.post("/services/<service_id>/users/invitations/<invitation_id>/withdraw")
@service_permission_required("manage_service")
def withdraw(service_id: str, invitation_id: str) -> Any:
    invitation = _invitation_or_404(service_id, invitation_id)
    if ConfirmForm().validate_on_submit():
        perform(lambda: withdraw_invitation(service_id, invitation.id),
                confirm=_l("Invitation to %(email)s withdrawn: its link no longer works",
                           email=invitation.email_address))
    return redirect(url_for("team.index", service_id=service_id))
