"""An organisation's settings and the changes to its members and services made from its page: a new
organisation with its settings, the platform admin's settings page (name, kind, language, time zone,
rate agreement), a member's role (admin or member, for the organisation's admins and platform admins)
and a service taken out of it (platform admins).

Every change is core's (core/organisations.py, core/organisation_members.py), recorded in the
organisation's trail by it; a refusal is shown on the page in its language.
"""
from __future__ import annotations

from typing import Any

from flask import redirect, render_template, url_for
from flask_babel import gettext as _, lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField
from wtforms.validators import DataRequired, Length, Optional

from console.appearance.views import LANGUAGE_LABELS
from console.auth import login_required, platform_admin_required
from console.organisations.blueprint import bp
from console.organisations.shared import KIND_NAMES, ROLE_NAMES, ConfirmForm, perform, visible
from core import organisation_members as members, organisations as orgs
from core.rates import rate_tables
from models.organisation import DEFAULT_TIME_ZONE, Organisation
from models.rate import STANDARD_RATES

TIME_ZONE_HINT = _l("Its name in the IANA time zone database, such as Europe/Amsterdam (the Netherlands) or "
                    "America/Kralendijk (Bonaire, Sint Eustatius and Saba). A service made in the organisation "
                    "starts on this clock.")


def _stripped(value: str | None) -> str | None:
    return value.strip() if isinstance(value, str) else value


def rate_name(rate_table: str) -> str:
    """A rate agreement as the page names it: the standard table in words, another by its name."""
    return _("Standard rates") if rate_table == STANDARD_RATES else rate_table


class OrganisationForm(FlaskForm):
    """A new organisation: a name and kind; its language, time zone and rate agreement start as
    core's defaults (a blank time zone is the default)."""
    name = StringField(_l("Name of the organisation"), filters=[_stripped], validators=[
        DataRequired(_l("Enter the name of the organisation")), Length(max=255)])
    kind = SelectField(_l("Kind of organisation"), choices=list(KIND_NAMES.items()))
    language = SelectField(_l("Language"), choices=list(LANGUAGE_LABELS.items()), default="nl")
    time_zone = StringField(_l("Time zone"), filters=[_stripped], default=DEFAULT_TIME_ZONE,
                            validators=[Optional(), Length(max=64)])
    rate_table = SelectField(_l("Rate agreement"), default=STANDARD_RATES)

    def offer_rate_tables(self, current: str | None = None) -> OrganisationForm:
        """The rate tables that have prices, and the organisation's own (kept when it has none)."""
        names = rate_tables()
        if current is not None and current not in names:
            names.append(current)
        self.rate_table.choices = [(name, rate_name(name)) for name in names]
        return self

    def settings(self) -> dict[str, Any]:
        chosen = {field: getattr(self, field).data for field in orgs.FIELDS}
        return {field: value for field, value in chosen.items() if value not in (None, "")}


class SettingsForm(OrganisationForm):
    time_zone = StringField(_l("Time zone"), filters=[_stripped], validators=[
        DataRequired(_l("Enter a time zone")), Length(max=64)])


class RoleForm(FlaskForm):
    role = SelectField(_l("Role"), choices=list(ROLE_NAMES.items()))


def _to_page(organisation_id: object) -> Any:
    return redirect(url_for("organisations.show", organisation_id=organisation_id))


@bp.route("/organisations/new", methods=["GET", "POST"])
@platform_admin_required
def new() -> Any:
    form = OrganisationForm().offer_rate_tables()
    if form.validate_on_submit():
        settings = form.settings()
        done, made = perform(lambda: orgs.create_organisation(**settings), form,
                             _l("Organisation made"))
        if done and made is not None:
            return _to_page(made.id)
    return render_template("organisations/new.html", form=form, time_zone_hint=TIME_ZONE_HINT)


@bp.route("/organisations/<organisation_id>/settings", methods=["GET", "POST"])
@login_required
def settings(organisation_id: str) -> Any:
    """A platform admin's: an organisation's own admins manage its members, domains and brands."""
    organisation = visible(organisation_id, platform=True)
    form = SettingsForm(data=orgs.values_of(organisation)).offer_rate_tables(organisation.rate_table)
    if form.validate_on_submit():
        # Only what was changed: an unchanged rate agreement is not checked again.
        changes = {field: value for field, value in form.settings().items()
                   if value != getattr(organisation, field)}
        if not changes or perform(lambda: orgs.update_organisation(organisation_id, **changes), form,
                                                  _l("Settings saved"))[0]:
            return _to_page(organisation.id)
    return render_template("organisations/settings.html", organisation=organisation, form=form,
                           time_zone_hint=TIME_ZONE_HINT)


@bp.post("/organisations/<organisation_id>/members/<user_id>/role")
@login_required
def change_role(organisation_id: str, user_id: str) -> Any:
    """Make a member an admin, or an admin a member; the last admin stays (core's refusal, shown)."""
    visible(organisation_id, manage=True)
    form = RoleForm()
    if form.validate_on_submit():
        perform(lambda: members.change_role(organisation_id, user_id, form.role.data), confirm=_l("Role changed"))
    return _to_page(organisation_id)


@bp.post("/organisations/<organisation_id>/services/<service_id>/remove")
@login_required
def remove_service(organisation_id: str, service_id: str) -> Any:
    """Take a service out of the organisation (a platform admin's), in both histories."""
    visible(organisation_id, platform=True)
    if ConfirmForm().validate_on_submit():
        perform(lambda: orgs.remove_service(organisation_id, service_id),
                confirm=_l("Service removed from the organisation"))
    return _to_page(organisation_id)


def describe(organisation: Organisation) -> dict[str, Any]:
    """The organisation's settings as its page shows them (its name and kind head the page)."""
    return {"language": LANGUAGE_LABELS.get(organisation.language, organisation.language),
            "time_zone": organisation.time_zone, "rate_table": rate_name(organisation.rate_table)}
