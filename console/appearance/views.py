"""What a service's recipients see: its language and brands, with previews; brands for platform admins.

Changes go through the rules floor (core.appearance, core.brands), so the rules and the audit trail
are the same as for the admin API and the CLI.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import RadioField, SelectField, StringField
from wtforms.validators import InputRequired, Length, Optional

from console.acting import perform
from console.auth import current_service, current_user, platform_admin_required, service_permission_required
from core.appearance import change_appearance, sample_email, sample_letter
from core.brands import create_email_brand, create_letter_brand
from core.organisations import offered_brand_ids
from models.appearance import EmailBrand, LetterBrand, appearance_of

bp = Blueprint("appearance", __name__)

LANGUAGE_LABELS = {"nl": _l("Dutch"), "en": _l("English")}
NONE = ""


class AppearanceForm(FlaskForm):
    language = RadioField(_l("Language of emails, letters and pages your recipients see"),
                          choices=list(LANGUAGE_LABELS.items()), validators=[InputRequired(_l("Choose a language"))])
    email_brand = SelectField(_l("Email brand"))
    letter_brand = SelectField(_l("Letter logo"))


class EmailBrandForm(FlaskForm):
    name = StringField(_l("Name"), validators=[InputRequired(_l("Enter a name")), Length(max=255)])
    colour = StringField(_l("Colour (for example #154273)"), validators=[Optional(), Length(max=7)])
    brand_type = RadioField(_l("The brand"), default="org", choices=[
        ("org", _l("replaces the service name")), ("both", _l("sits beside the service name"))])
    logo = FileField(_l("Logo (PNG or SVG)"))


class LetterBrandForm(FlaskForm):
    name = StringField(_l("Name"), validators=[InputRequired(_l("Enter a name")), Length(max=255)])
    logo = FileField(_l("Logo (PNG or SVG)"), validators=[FileRequired(_l("Choose a logo"))])


@bp.app_context_processor
def _settings_row() -> dict[str, Any]:
    # The settings page's row that leads here; its words live in this area's catalogue.
    return {"appearance_row": {"label": _l("What recipients see"), "value": _l("Language and brands")}}


def _choices(model: type[EmailBrand] | type[LetterBrand], offered: set[Any] | None,
             current: Any) -> list[tuple[str, Any]]:
    """Every brand; for a service of an organisation, the brands it offers (and the one in use)."""
    brands = model.select().order_by(model.name)
    if offered is not None:
        brands = brands.where(model.id.in_(list(offered | ({current.id} if current else set()))))
    return [(NONE, _l("None"))] + [(str(b.id), b.name) for b in brands]


def _uploaded(field: FileField) -> bytes | None:
    return field.data.read() if field.data else None


@bp.route("/services/<service_id>/service-settings/appearance", methods=["GET", "POST"])
@service_permission_required("manage_service")
def settings(service_id: str) -> Any:
    current = appearance_of(service_id)
    form = AppearanceForm(data={
        "language": current.language,
        "email_brand": str(current.email_brand.id) if current.email_brand else NONE,
        "letter_brand": str(current.letter_brand.id) if current.letter_brand else NONE})
    offered = offered_brand_ids(service_id)
    form.email_brand.choices = _choices(EmailBrand, offered[0] if offered else None, current.email_brand)
    form.letter_brand.choices = _choices(LetterBrand, offered[1] if offered else None, current.letter_brand)
    if form.validate_on_submit():
        done, _ = perform(lambda: change_appearance(
            service_id, language=form.language.data, email_brand_id=form.email_brand.data or None,
            letter_brand_id=form.letter_brand.data or None), form, confirm=_l("Settings saved"))
        if done:
            return redirect(url_for("appearance.settings", service_id=service_id))
    return render_template("appearance/settings.html", service=current_service(), form=form,
                           language_label=LANGUAGE_LABELS[current.language],
                           platform_admin=current_user().platform_admin)


@bp.get("/services/<service_id>/service-settings/appearance/email-preview")
@service_permission_required("manage_service")
def email_preview(service_id: str) -> Response:
    current = appearance_of(service_id)
    response = Response(sample_email(current.language, current.email_brand, current_service().name),
                        mimetype="text/html")
    # Framed by the settings page itself: an email is styled inline, and runs nothing.
    response.headers["Content-Security-Policy"] = ("default-src 'none'; img-src * data:; style-src 'unsafe-inline'; "
                                                   "frame-ancestors 'self'")
    response.headers["X-Frame-Options"] = "SAMEORIGIN"
    return response


@bp.get("/services/<service_id>/service-settings/appearance/letter-preview.pdf")
@service_permission_required("manage_service")
def letter_preview(service_id: str) -> Response:
    current = appearance_of(service_id)
    return Response(sample_letter(current.language, current.letter_brand, current_service().name),
                    mimetype="application/pdf")


@bp.get("/brands")
@platform_admin_required
def brands() -> Any:
    return _brands_page(EmailBrandForm(prefix="email"), LetterBrandForm(prefix="letter"))


def _brands_page(email_form: EmailBrandForm, letter_form: LetterBrandForm) -> Any:
    return render_template("appearance/brands.html", email_form=email_form, letter_form=letter_form,
                           email_brands=EmailBrand.select().order_by(EmailBrand.name),
                           letter_brands=LetterBrand.select().order_by(LetterBrand.name))


@bp.post("/brands/email")
@platform_admin_required
def new_email_brand() -> Any:
    form = EmailBrandForm(prefix="email")
    if form.validate_on_submit():
        done, _ = perform(lambda: create_email_brand(
            name=form.name.data, colour=form.colour.data or None, brand_type=form.brand_type.data,
            logo=_uploaded(form.logo)), form, confirm=_l("Email brand added"))
        if done:
            return redirect(url_for("appearance.brands"))
    return _brands_page(form, LetterBrandForm(prefix="letter"))


@bp.post("/brands/letter")
@platform_admin_required
def new_letter_brand() -> Any:
    form = LetterBrandForm(prefix="letter")
    if form.validate_on_submit():
        done, _ = perform(lambda: create_letter_brand(name=form.name.data, logo=_uploaded(form.logo)), form,
                          confirm=_l("Letter brand added"))
        if done:
            return redirect(url_for("appearance.brands"))
    return _brands_page(EmailBrandForm(prefix="email"), form)
