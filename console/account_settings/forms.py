"""The account settings forms (FlaskForms: each carries and checks a CSRF token)."""
from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField, StringField
from wtforms.validators import DataRequired, Email, EqualTo, Length

from console.accounts.forms import NotGuessable
from core.passwords import MIN_LENGTH


class NameForm(FlaskForm):
    name = StringField(_l("Full name"), validators=[DataRequired(_l("Enter your name")), Length(max=255)])


class EmailForm(FlaskForm):
    email_address = EmailField(_l("New email address"), validators=[
        DataRequired(_l("Enter your new email address")), Email(_l("Enter a valid email address"))])


class MobileForm(FlaskForm):
    mobile_number = StringField(_l("Mobile number"), validators=[DataRequired(_l("Enter your mobile number"))])


class PasswordForm(FlaskForm):
    current_password = PasswordField(_l("Current password"), validators=[
        DataRequired(_l("Enter your current password"))])
    password = PasswordField(_l("New password"), validators=[
        DataRequired(_l("Enter a new password")),
        Length(min=MIN_LENGTH, max=256, message=_l("Your password must be at least 10 characters long")),
        NotGuessable()])
    password_confirm = PasswordField(_l("Repeat your new password"), validators=[
        DataRequired(_l("Repeat your new password")), EqualTo("password", _l("The passwords do not match"))])
