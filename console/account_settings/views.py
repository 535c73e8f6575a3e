"""A signed-in user's own settings, linked from the account page: name, email address (changed once
a link sent to the new address is followed), mobile number (confirmed by a code by text message)
and password (the current one required). The rules are core/account_settings.py's."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _

from console import auth
from console.account_settings.forms import EmailForm, MobileForm, NameForm, PasswordForm
from console.accounts import second_factor, signing_in
from console.accounts.forms import CodeForm, EmptyForm
from console.redirect_target import is_same_site
from core import account_settings
from core.account_settings import AccountError
from core.passwords import hash_password

bp = Blueprint("account_settings", __name__)


def _problem(error: AccountError) -> str:
    return {
        "name": _("Enter your name"),
        "mobile": _("Enter a valid mobile number, for example 06 12345678 or +32 470 12 34 56"),
        "email": _("Enter a valid email address"),
        "email-same": _("This is already your email address"),
        "email-taken": _("There is already an account with this email address"),
        "current-password": _("Your current password is wrong"),
    }[error.kind]


@bp.route("/account/name", methods=["GET", "POST"])
@auth.login_required
def name() -> Any:
    user = auth.current_user()
    form = NameForm(data={"name": user.name})
    if form.validate_on_submit():
        try:
            account_settings.change_name(user, form.name.data)
        except AccountError as error:
            form.name.errors.append(_problem(error))
        else:
            flash(_("Your name has been changed."))
            return redirect(url_for("accounts.account"))
    return render_template("account_settings/name.html", form=form)


@bp.route("/account/email", methods=["GET", "POST"])
@auth.login_required
def email() -> Any:
    user = auth.current_user()
    form = EmailForm()
    if form.validate_on_submit():
        if not signing_in.allow_code_sent(user):
            form.email_address.errors.append(_("Too many emails sent. Wait 15 minutes and try again."))
        else:
            try:
                account_settings.request_email_change(user, form.email_address.data)
            except AccountError as error:
                form.email_address.errors.append(_problem(error))
            else:
                return render_template("account_settings/email_sent.html",
                                       email_address=form.email_address.data.strip().lower())
    return render_template("account_settings/email.html", form=form, user=user)


@bp.route("/account/email/confirm/<token>", methods=["GET", "POST"])
def email_confirm(token: str) -> Any:
    # A button, not the link alone, makes the change: mail scanners open every link they see.
    change = account_settings.find_email_change(token)
    if change is None:
        return render_template("accounts/link_expired.html", kind="email"), 404
    form = EmptyForm()
    if form.validate_on_submit():
        try:
            account_settings.confirm_email_change(change)
        except AccountError as error:
            if error.kind == "link-used":
                return render_template("accounts/link_expired.html", kind="email"), 404
            flash(_problem(error), "error")
            return redirect(url_for("accounts.account"))
        flash(_("Your email address has been changed to %(email)s.", email=change.new_email_address))
        return redirect(url_for("accounts.account") if auth.current_user() else url_for("accounts.sign_in"))
    return render_template("account_settings/email_confirm.html", change=change, form=form)


@bp.route("/account/mobile", methods=["GET", "POST"])
@auth.login_required
def mobile() -> Any:
    user = auth.current_user()
    texts_arrive = account_settings.codes_by_text_readable()
    form = MobileForm()
    if is_same_site(request.args.get("next")):  # a page that sent the user here to add their number
        session["after_mobile"] = request.args["next"]
    if texts_arrive and form.validate_on_submit():
        try:
            number = account_settings.normalised_mobile_number(form.mobile_number.data)
        except AccountError as error:
            form.mobile_number.errors.append(_problem(error))
        else:
            if not signing_in.allow_code_sent(user):
                form.mobile_number.errors.append(_("Too many codes sent. Wait 15 minutes and try again."))
            else:
                second_factor.send_sms_code(str(user.id), number)
                session["new_mobile_number"] = number
                return redirect(url_for("account_settings.mobile_confirm"))
    return render_template("account_settings/mobile.html", form=form, user=user, texts_arrive=texts_arrive,
                           in_local_mailbox=not account_settings.texts_reach_people())


@bp.route("/account/mobile/confirm", methods=["GET", "POST"])
@auth.login_required
def mobile_confirm() -> Any:
    user, number = auth.current_user(), session.get("new_mobile_number")
    if not number:
        return redirect(url_for("account_settings.mobile"))
    form = CodeForm()
    if form.validate_on_submit():
        if not signing_in.allow_code_attempt(user):
            form.code.errors.append(_("Too many wrong codes. Wait 15 minutes and try again."))
        elif second_factor.check_sms_code(str(user.id), number, form.code.data):
            had_one = user.mobile_number is not None
            account_settings.set_mobile_number(user, number)
            session.pop("new_mobile_number", None)
            flash(_("Your mobile number has been changed.") if had_one else _("Your mobile number has been added."))
            back = session.pop("after_mobile", None)
            return redirect(back if is_same_site(back) else url_for("accounts.account"))
        else:
            form.code.errors.append(_("The code is wrong or has expired."))
    return render_template("account_settings/mobile_confirm.html", form=form, number=number)


@bp.post("/account/mobile/remove")
@auth.login_required
def mobile_remove() -> Any:
    if EmptyForm().validate_on_submit():
        account_settings.set_mobile_number(auth.current_user(), None)
        flash(_("Your mobile number has been removed."))
    return redirect(url_for("accounts.account"))


@bp.route("/account/password", methods=["GET", "POST"])
@auth.login_required
def password() -> Any:
    user = auth.current_user()
    form = PasswordForm()
    form.user_inputs = [user.email_address, user.name]
    if form.validate_on_submit():
        if not signing_in.allow_password_attempt(user.email_address):
            form.current_password.errors.append(_("Too many attempts. Wait 15 minutes and try again."))
        else:
            try:
                account_settings.change_password(user, form.current_password.data, hash_password(form.password.data))
            except AccountError as error:
                form.current_password.errors.append(_problem(error))
            else:
                # Every session ended with the old password; this browser goes on in a new one.
                auth.start_session(user)
                flash(_("Your password has been changed. You have been signed out everywhere else."))
                return redirect(url_for("accounts.account"))
    return render_template("account_settings/password.html", form=form)
