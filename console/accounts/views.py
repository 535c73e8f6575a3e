"""Signing in and out, the second factor, the account page and the language switch."""
from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _

from console import LANGUAGES, auth
from console.accounts import (
    links_views,  # noqa: F401  (its routes join bp)
    second_factor,
    setup_views,  # noqa: F401  (its routes join bp)
    signing_in,
)
from console.accounts.blueprint import bp
from console.accounts.forms import CodeForm, EmptyForm, SignInForm
from console.redirect_target import safe_target
from core.passwords import hash_password, needs_rehash, verify_password
from models.db import utcnow
from models.user import User, UserSession, find_user_by_email, revoke_sessions

# Verified against when the address is unknown, so a wrong address takes as long as a wrong password.
_NO_SUCH_USER_HASH = hash_password("no such user: compare against something")


@bp.route("/sign-in", methods=["GET", "POST"])
def sign_in() -> Any:
    if auth.current_user() is not None:
        return redirect(url_for("main.services"))
    if request.method == "GET":
        signing_in.remember_next(request.args.get("next"))
    form = SignInForm()
    if form.validate_on_submit():
        email = form.email_address.data.strip().lower()
        if not signing_in.allow_password_attempt(email):
            form.form_errors.append(_("Too many attempts to sign in. Wait 15 minutes and try again."))
            return render_template("accounts/sign_in.html", form=form), 429
        user = find_user_by_email(email)
        if user is None or not verify_password(user.password_hash, form.password.data):
            if user is None:
                verify_password(_NO_SUCH_USER_HASH, form.password.data)
            form.form_errors.append(_("The email address or password is wrong."))
            return render_template("accounts/sign_in.html", form=form), 200
        if needs_rehash(user.password_hash):
            User.update(password_hash=hash_password(form.password.data)).where(User.id == user.id).execute()
        signing_in.begin(user)
        if user.auth_type is None:
            return redirect(url_for("accounts.two_factor_setup"))
        if user.auth_type in ("email", "sms") and signing_in.allow_code_sent(user):
            _send_code(user)
        return redirect(url_for("accounts.two_factor"))
    ended = request.args.get("ended") if request.method == "GET" else None
    return render_template("accounts/sign_in.html", form=form, session_ended=ended)


@bp.route("/two-factor", methods=["GET", "POST"])
def two_factor() -> Any:
    user = signing_in.pending_user()
    if user is None:
        return redirect(url_for("accounts.sign_in"))
    if user.auth_type is None:
        return redirect(url_for("accounts.two_factor_setup"))
    form = CodeForm()
    if form.validate_on_submit():
        if not signing_in.allow_code_attempt(user):
            form.code.errors.append(_("Too many wrong codes. Wait 15 minutes and sign in again."))
            return render_template("accounts/two_factor.html", form=form, user=user, resend=EmptyForm()), 429
        code = form.code.data
        if user.auth_type == "totp":
            valid = second_factor.check_totp(str(user.id), user.totp_secret, code)
        elif user.auth_type == "sms":
            valid = second_factor.check_sms_code(str(user.id), user.mobile_number, code)
        else:
            valid = second_factor.check_email_code(str(user.id), code)
        if valid:
            signing_in.succeeded(user)
            target = signing_in.take_next(url_for("main.services"))
            auth.start_session(user)
            return redirect(target)
        form.code.errors.append(_("The code is wrong or has expired."))
    return render_template("accounts/two_factor.html", form=form, user=user, resend=EmptyForm())


@bp.post("/two-factor/new-code")
def two_factor_new_code() -> Any:
    user = signing_in.pending_user()
    if user is None or user.auth_type not in ("email", "sms") or not EmptyForm().validate_on_submit():
        return redirect(url_for("accounts.sign_in"))
    if signing_in.allow_code_sent(user):
        _send_code(user)
        flash(_("We have sent you a new code."))
    else:
        flash(_("Too many codes sent. Wait 15 minutes and try again."), "error")
    return redirect(url_for("accounts.two_factor"))


def _send_code(user: User) -> None:
    if user.auth_type == "sms":
        second_factor.send_sms_code(str(user.id), user.mobile_number)
    else:
        second_factor.send_email_code(str(user.id), user.email_address)


@bp.post("/sign-out")
def sign_out() -> Any:
    if EmptyForm().validate_on_submit():
        auth.end_session()
        flash(_("You have signed out."))
    return redirect(url_for("accounts.sign_in"))


@bp.post("/sign-out-everywhere")
@auth.login_required
def sign_out_everywhere() -> Any:
    if EmptyForm().validate_on_submit():
        revoke_sessions(auth.current_user())
        auth.end_session()
        flash(_("You have signed out on every device."))
    return redirect(url_for("accounts.sign_in"))


@bp.get("/account")
@auth.login_required
def account() -> Any:
    user = auth.current_user()
    now = utcnow()
    sessions = list(UserSession.select().where((UserSession.user == user) & UserSession.revoked_at.is_null()
                                               & (UserSession.last_seen_at > now - auth.idle_timeout())
                                               & (UserSession.created_at > now - auth.lifetime()))
                    .order_by(UserSession.last_seen_at.desc()))
    return render_template("accounts/account.html", user=user, sessions=sessions, form=EmptyForm())


@bp.get("/language/<code>")
def language(code: str) -> Any:
    """Switch language by a plain link (no JavaScript, no form): only a preference changes."""
    if code not in LANGUAGES:
        abort(404)
    session["lang"] = code
    return redirect(safe_target(request.args.get("next"), url_for("main.index")))
