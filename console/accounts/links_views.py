"""Pages reached by a link sent or printed: invitations (and the first admin's set-up link),
forgotten passwords and their reset links."""
from __future__ import annotations

from typing import Any

import peewee
from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from console import auth, redis_state
from console.accounts import setup_views, signing_in
from console.accounts.blueprint import bp
from console.accounts.forms import EmptyForm, ForgotPasswordForm, NewAccountForm, NewAdminForm, ResetPasswordForm
from core import account_settings, accounts
from core.account_settings import AccountError
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
    if not account_settings.codes_by_text_readable():
        del form.mobile_number  # a code texted to it would reach nobody: the number could not be confirmed
    if form.validate_on_submit():
        number = _mobile_number(form)
        created = None if form.errors else _create_account(form, invited or form.email_address.data.strip().lower())
        if created is not None:
            accounts.accept(found, created)
            signing_in.begin(created)
            if number:  # its code confirms the number and makes it the second factor, as Notify's registration
                return setup_views.begin_by_text(created, number)
            return redirect(url_for("accounts.two_factor_setup"))
    return render_template("accounts/invitation_new.html", invitation=found, form=form)


def _mobile_number(form: NewAccountForm) -> str | None:
    """The number given, in E.164; None when none was given or it is not a mobile number (said beside it)."""
    raw = form.mobile_number.data.strip() if "mobile_number" in form and form.mobile_number.data else ""
    if not raw:
        return None
    try:
        return account_settings.normalised_mobile_number(raw)
    except AccountError:
        form.mobile_number.errors.append(_("Enter a valid mobile number, for example 06 12345678 or +32 470 12 34 56"))
        return None


def _create_account(form: NewAccountForm, email: str) -> User | None:
    try:
        with database.atomic():
            return User.create(email_address=email, name=form.name.data.strip(),
                               password_hash=hash_password(form.password.data))
    except peewee.IntegrityError:
        form.email_address.errors.append(
            _("There is already an account with this email address. Sign in first, then open this link again."))
        return None


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
