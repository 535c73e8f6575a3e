"""Pages reached by a link sent or printed: invitations (and the first admin's set-up link),
forgotten passwords and their reset links."""
from __future__ import annotations

from typing import Any

import peewee
from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from console import auth, redis_state
from console.accounts import signing_in
from console.accounts.blueprint import bp
from console.accounts.forms import EmptyForm, ForgotPasswordForm, NewAccountForm, NewAdminForm, ResetPasswordForm
from core import accounts
from core.passwords import hash_password
from models.db import database
from models.user import Invitation, User, find_user_by_email


def _expired(kind: str) -> Any:
    return render_template("accounts/link_expired.html", kind=kind), 404


@bp.route("/invitation/<token>", methods=["GET", "POST"])
def invitation(token: str) -> Any:
    found = accounts.find_invitation(token)
    if found is None:
        return _expired("invitation")
    user, invited = auth.current_user(), found.email_address
    existing = find_user_by_email(invited) if invited else None
    if user is not None and (invited is None or user.email_address == invited):
        return _accept_as(user, found)
    if user is not None:
        return render_template("accounts/invitation_wrong_user.html", invitation=found, form=EmptyForm())
    if existing is not None:
        signing_in.remember_next(request.path)
        flash(_("Sign in to accept the invitation."))
        return redirect(url_for("accounts.sign_in"))
    form = NewAdminForm() if invited is None else NewAccountForm()
    form.user_inputs = [invited] if invited else []
    if form.validate_on_submit():
        email = form.email_address.data.strip().lower() if invited is None else invited
        try:
            with database.atomic():
                created = User.create(email_address=email, name=form.name.data.strip(),
                                      password_hash=hash_password(form.password.data))
        except peewee.IntegrityError:
            form.email_address.errors.append(
                _("There is already an account with this email address. Sign in first, then open this link again."))
        else:
            accounts.accept(found, created)
            signing_in.begin(created)
            return redirect(url_for("accounts.two_factor_setup"))
    return render_template("accounts/invitation_new.html", invitation=found, form=form)


def _accept_as(user: User, found: Invitation) -> Any:
    form = EmptyForm()
    if form.validate_on_submit():
        accounts.accept(found, user)
        flash(_("You have accepted the invitation."))
        return redirect(url_for("main.services"))
    return render_template("accounts/invitation_accept.html", invitation=found, form=form)


@bp.route("/forgot-password", methods=["GET", "POST"])
def forgot_password() -> Any:
    form = ForgotPasswordForm()
    if form.validate_on_submit():
        email = form.email_address.data.strip().lower()
        allowed = (redis_state.hit(f"reset:email:{email}", limit=3, window_seconds=3600)
                   and redis_state.hit(f"reset:client:{signing_in.client_address()}", limit=30, window_seconds=3600))
        if allowed:
            accounts.request_password_reset(email)
        # The same answer either way: the page must not tell who has an account.
        return render_template("accounts/check_email.html", email_address=email)
    return render_template("accounts/forgot_password.html", form=form)


@bp.route("/reset-password/<token>", methods=["GET", "POST"])
def reset_password(token: str) -> Any:
    reset = accounts.find_reset(token)
    if reset is None:
        return _expired("reset")
    form = ResetPasswordForm()
    form.user_inputs = [reset.user.email_address, reset.user.name]
    if form.validate_on_submit():
        try:
            accounts.reset_password(reset, hash_password(form.password.data))
        except accounts.InvitationError:
            return _expired("reset")
        auth.end_session()
        flash(_("Your password has been changed. Sign in with your new password."))
        return redirect(url_for("accounts.sign_in"))
    return render_template("accounts/reset_password.html", form=form)
