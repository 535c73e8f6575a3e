"""The account forms. Every form is a FlaskForm, so each carries and checks a CSRF token."""
from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField, RadioField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Email, EqualTo, Length, Optional, Regexp, ValidationError

from core.passwords import MIN_LENGTH, is_guessable


class NotGuessable:
    """Refuses a password on the list of common and breached ones, or close to one or to the
    person's name or address (on the same form, or known to the view: `form.user_inputs`)."""

    def __call__(self, form: FlaskForm, field: PasswordField) -> None:
        password = field.data or ""
        if len(password) < MIN_LENGTH:
            return  # Length says so already
        own = [form[name].data for name in ("name", "email_address") if name in form and form[name].data]
        if is_guessable(password, own + list(getattr(form, "user_inputs", []))):
            raise ValidationError(_l("This password is too easy to guess: it is a common password or close to one. "
                                     "Choose another, for example three or four random words."))


def _password_fields() -> tuple[PasswordField, PasswordField]:
    return (
        PasswordField(_l("Password"), validators=[
            DataRequired(_l("Enter a password")),
            Length(min=MIN_LENGTH, max=256, message=_l("Your password must be at least 10 characters long")),
            NotGuessable()]),
        PasswordField(_l("Repeat your password"), validators=[
            DataRequired(_l("Repeat your password")), EqualTo("password", _l("The passwords do not match"))]),
    )


def _email_field() -> EmailField:
    return EmailField(_l("Email address"), validators=[
        DataRequired(_l("Enter your email address")), Email(_l("Enter a valid email address"))])


class SignInForm(FlaskForm):
    email_address = _email_field()
    password = PasswordField(_l("Password"), validators=[DataRequired(_l("Enter your password"))])


class CodeForm(FlaskForm):
    code = StringField(_l("Code"), validators=[
        DataRequired(_l("Enter the code")), Regexp(r"^\s*\d{6}\s*$", message=_l("The code has 6 digits"))])


class EmptyForm(FlaskForm):
    """A button alone (sign out, send a new code): only the CSRF token is checked."""


class NewAccountForm(FlaskForm):
    """A new account: its name, the mobile number its code by text message confirms (left out where no
    text can be read: console.accounts.links_views), and its password."""
    name = StringField(_l("Full name"), validators=[DataRequired(_l("Enter your name")), Length(max=255)])
    mobile_number = StringField(_l("Mobile number (optional)"), validators=[Optional(), Length(max=50)])
    password, password_confirm = _password_fields()


class NewAdminForm(NewAccountForm):
    email_address = _email_field()


class ChooseSecondFactorForm(FlaskForm):
    auth_type = RadioField(_l("How do you want to confirm it is you when you sign in?"), choices=[
        SelectChoice("totp", _l("With an authenticator app (TOTP)")),
        SelectChoice("email", _l("With a code sent by email")),
        SelectChoice("sms", _l("With a code sent by text message to your mobile number"))],
        validators=[DataRequired(_l("Choose how to confirm it is you"))])


class ForgotPasswordForm(FlaskForm):
    email_address = _email_field()


class ResetPasswordForm(FlaskForm):
    password, password_confirm = _password_fields()
