"""Setting up the second factor: right after creating an account (before the first sign-in ends),
or later from the account page to change it. A new account that gave its mobile number starts with
a code texted to it: that code confirms the number and makes it the second factor."""
from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, session, url_for
from flask_babel import gettext as _

from config import get_settings
from console import auth
from console.accounts import second_factor, signing_in
from console.accounts.blueprint import bp
from console.accounts.forms import ChooseSecondFactorForm, CodeForm
from core import account_settings
from models.user import ServiceUser, User

# The number a new account gave, until the code texted to it comes back.
SETUP_NUMBER = "setup_mobile"


def _setup_user() -> User | None:
    """Who may set up a second factor: a signed-in user, or one who has just given the password of an
    account that has none yet (never one that has one: that would skip it)."""
    user = auth.current_user()
    if user is not None:
        return user
    pending = signing_in.pending_user()
    return pending if pending is not None and pending.auth_type is None else None


def _setup_number(user: User) -> str | None:
    """The number a code by text message goes to: the one given with the new account, else the confirmed one."""
    return session.get(SETUP_NUMBER) or user.mobile_number


def begin_by_text(user: User, number: str) -> Any:
    """Text a code to the number a new account gave and wait for it (a refused send still shows the page,
    whose link asks again)."""
    session[SETUP_NUMBER] = number
    if signing_in.allow_code_sent(user):
        second_factor.send_sms_code(str(user.id), number)
    return redirect(url_for("accounts.two_factor_setup_sms"))


def _confirmation(auth_type: str) -> str:
    return {"totp": _("Your second factor is set up: when you sign in, you enter the code your authenticator app "
                      "shows."),
            "email": _("Your second factor is set up: when you sign in, you enter a code we email you."),
            "sms": _("Your mobile number is confirmed and your second factor is set up: when you sign in, you enter "
                     "a code we text you.")}[auth_type]


def _finish(user: User, auth_type: str, totp_secret: str | None) -> Any:
    User.update(auth_type=auth_type, totp_secret=totp_secret).where(User.id == user.id).execute()
    session.pop("setup_totp", None)
    session.pop(SETUP_NUMBER, None)
    if auth.current_user() is not None:
        flash(_("Your second factor has been changed."))
        return redirect(url_for("accounts.account"))
    signing_in.succeeded(user)
    # A first account belongs to no service yet: adding one is the next step, not an empty list.
    member = ServiceUser.select().where(ServiceUser.user == user).exists()
    target = signing_in.take_next(url_for("main.services" if member else "services.new_service"))
    auth.start_session(user)  # a new session: what is flashed goes in after it
    flash(_confirmation(auth_type))
    return redirect(target)


@bp.route("/two-factor/set-up", methods=["GET", "POST"])
def two_factor_setup() -> Any:
    user = _setup_user()
    if user is None:
        return redirect(url_for("accounts.sign_in"))
    form = ChooseSecondFactorForm()
    # Without an email provider the simulated one delivers nothing: a code by email would lock the
    # user out, so only the app is offered.
    email_possible = get_settings().smtp_url is not None
    # A text needs a number (confirmed, or given with the new account) and a gateway that delivers it.
    number = _setup_number(user)
    sms_possible = number is not None and account_settings.codes_by_text_readable()
    form.auth_type.choices = [c for c in form.auth_type.choices
                              if (c.value != "email" or email_possible) and (c.value != "sms" or sms_possible)]
    if form.validate_on_submit():
        if form.auth_type.data == "totp":
            session["setup_totp"] = second_factor.new_totp_secret()
            return redirect(url_for("accounts.two_factor_setup_totp"))
        if form.auth_type.data == "sms":
            if signing_in.allow_code_sent(user):
                second_factor.send_sms_code(str(user.id), number)
            return redirect(url_for("accounts.two_factor_setup_sms"))
        if signing_in.allow_code_sent(user):
            second_factor.send_email_code(str(user.id), user.email_address)
        return redirect(url_for("accounts.two_factor_setup_email"))
    return render_template("accounts/two_factor_setup.html", form=form, email_possible=email_possible,
                           sms_possible=sms_possible)


@bp.route("/two-factor/set-up/app", methods=["GET", "POST"])
def two_factor_setup_totp() -> Any:
    user, secret = _setup_user(), session.get("setup_totp")
    if user is None or not secret:
        return redirect(url_for("accounts.two_factor_setup"))
    form = CodeForm()
    if form.validate_on_submit():
        if not signing_in.allow_code_attempt(user):
            form.code.errors.append(_("Too many wrong codes. Wait 15 minutes and try again."))
        elif second_factor.check_totp(str(user.id), secret, form.code.data):
            return _finish(user, "totp", secret)
        else:
            form.code.errors.append(_("The code is wrong or has expired."))
    uri = second_factor.totp_uri(secret, user.email_address)
    return render_template("accounts/two_factor_setup_totp.html", form=form, secret=secret,
                           qr_code=second_factor.qr_code_svg(uri))


@bp.route("/two-factor/set-up/email", methods=["GET", "POST"])
def two_factor_setup_email() -> Any:
    return _setup_by_code("email")


@bp.route("/two-factor/set-up/text-message", methods=["GET", "POST"])
def two_factor_setup_sms() -> Any:
    return _setup_by_code("sms")


def _code_came_back(user: User, auth_type: str, number: str | None, code: str) -> bool:
    if auth_type == "email":
        return second_factor.check_email_code(str(user.id), code)
    if not second_factor.check_sms_code(str(user.id), number, code):
        return False
    if number != user.mobile_number:  # the number the new account gave, confirmed now
        account_settings.set_mobile_number(user, number)
    return True


def _setup_by_code(auth_type: str) -> Any:
    """The code sent when the user chose email or text message comes back: that becomes the second factor."""
    user = _setup_user()
    number = _setup_number(user) if user is not None else None
    if user is None or (auth_type == "sms" and number is None):
        return redirect(url_for("accounts.two_factor_setup"))
    form = CodeForm()
    if form.validate_on_submit():
        if not signing_in.allow_code_attempt(user):
            form.code.errors.append(_("Too many wrong codes. Wait 15 minutes and try again."))
        elif _code_came_back(user, auth_type, number, form.code.data):
            return _finish(user, auth_type, None)
        else:
            form.code.errors.append(_("The code is wrong or has expired."))
    return render_template("accounts/two_factor_setup_code.html", form=form, user=user, auth_type=auth_type,
                           number=number)
