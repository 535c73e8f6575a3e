"""Zaakgericht werken (issue 52): a service's link to its ZGW APIs under its settings (the connection and
its credentials, the case types taking part, a template per scenario and channel, the subscription at
Open Notificaties), and under its activity what became of each case event (activity.py). Every change
goes through core/case_events.py, as the admin API's do; a credential is never shown again."""
from __future__ import annotations

from typing import Any

from flask import abort, redirect, render_template, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import PasswordField, SelectField, StringField, TextAreaField, URLField
from wtforms.fields import SelectChoice
from wtforms.validators import DataRequired, Length, Optional

from console.acting import perform
from console.auth import current_service, service_permission_required
from console.case_events import activity, words  # noqa: F401  (activity's routes join bp)
from console.case_events.blueprint import bp
from console.value_names import CHANNELS
from core import case_events
from core.templates import current_versions
from pipeline.domain import case_events as domain

SETTINGS = "/services/<service_id>/service-settings/case-events"
CHANNEL_ORDER = (domain.SMS, domain.EMAIL, domain.LETTER)


def _root(label: str) -> URLField:
    return URLField(label, validators=[DataRequired(_l("Enter the API's root")), Length(max=case_events.MAX_ROOT)])


def _secret(label: Any) -> PasswordField:
    return PasswordField(label, validators=[Optional(), Length(max=case_events.MAX_SECRET)])


class ConnectionForm(FlaskForm):
    # The APIs by their names, the same in every language.
    zaken_root = _root("Zaken API")
    catalogi_root = _root("Catalogi API")
    klant_root = _root("Open Klant API")
    client_id = StringField(_l("Client ID"), validators=[DataRequired(_l("Enter the client ID")),
                                                         Length(max=case_events.MAX_CLIENT_ID)])
    client_secret = _secret(_l("Secret"))
    klant_token = _secret(_l("Open Klant token"))
    nrc_root = URLField("Open Notificaties API", validators=[Optional(), Length(max=case_events.MAX_ROOT)])
    nrc_client_id = StringField(_l("Client ID at Open Notificaties"),
                                validators=[Optional(), Length(max=case_events.MAX_CLIENT_ID)])
    nrc_secret = _secret(_l("Secret at Open Notificaties"))


class CaseTypesForm(FlaskForm):
    case_types = TextAreaField(_l("Case types taking part"), validators=[Length(max=20_000)])


class ConfirmForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


def _link_or_none(service_id: str) -> Any:
    return case_events.link_of(service_id)


def _link_or_404(service_id: str) -> Any:
    link = case_events.link_of(service_id)
    if link is None:
        abort(404)
    return link


def _to_settings(service_id: str) -> Any:
    return redirect(url_for("case_events.settings", service_id=service_id))


@bp.get(SETTINGS)
@service_permission_required("manage_service")
def settings(service_id: str) -> Any:
    link = _link_or_none(service_id)
    names = {str(v.template.id): v.name for v in current_versions(service_id)} if link else {}
    return render_template("case_events/settings.html", service=current_service(), link=link, words=words,
                           callback_url=case_events.callback_url(link) if link else None, names=names,
                           scenarios=domain.SCENARIOS, channels=CHANNEL_ORDER, button=ConfirmForm())


@bp.route(SETTINGS + "/connection", methods=["GET", "POST"])
@service_permission_required("manage_service")
def connection(service_id: str) -> Any:
    link = _link_or_none(service_id)
    shown = {field: getattr(link, field) for field in (*case_events.ROOTS, "client_id", "nrc_root", "nrc_client_id")
             } if link else {}
    form = ConnectionForm(data=shown)
    if form.validate_on_submit():
        values = {field: (form[field].data or "").strip() or None for field in (
            *case_events.ROOTS, "client_id", "nrc_root", "nrc_client_id")}
        # A credential left empty keeps the one set (it is never shown again).
        values.update({field: form[field].data for field in ("client_secret", "klant_token", "nrc_secret")
                       if form[field].data})
        done, _ = perform(lambda: case_events.set_link(service_id, values), form, translate=words.refusal,
                          confirm=_l("Connection saved"))
        if done:
            return _to_settings(service_id)
    return render_template("case_events/connection.html", service=current_service(), form=form, link=link)


@bp.route(SETTINGS + "/case-types", methods=["GET", "POST"])
@service_permission_required("manage_service")
def case_types(service_id: str) -> Any:
    link = _link_or_404(service_id)
    form = CaseTypesForm(data={"case_types": "\n".join(link.case_types or [])})
    if form.validate_on_submit():
        given = (form.case_types.data or "").splitlines()
        done, _ = perform(lambda: case_events.set_case_types(service_id, given), form, translate=words.refusal,
                          confirm=_l("Case types saved"))
        if done:
            return _to_settings(service_id)
    return render_template("case_events/case_types.html", service=current_service(), form=form)


def _templates_form(service_id: str, chosen: dict[str, dict[str, str]]) -> FlaskForm:
    """A select per scenario and channel, of the service's templates of that channel."""
    by_channel: dict[str, list[SelectChoice]] = {channel: [] for channel in CHANNEL_ORDER}
    for version in current_versions(service_id, by_name=True):
        by_channel.setdefault(version.template.template_type, []).append(
            SelectChoice(str(version.template.id), version.name))

    class TemplatesForm(FlaskForm):
        pass

    for scenario in domain.SCENARIOS:
        for channel in CHANNEL_ORDER:
            setattr(TemplatesForm, f"{scenario}_{channel}", SelectField(
                CHANNELS[channel], choices=[SelectChoice("", _l("None")), *by_channel[channel]],
                default=(chosen.get(scenario) or {}).get(channel, "")))
    return TemplatesForm()


@bp.route(SETTINGS + "/templates", methods=["GET", "POST"])
@service_permission_required("manage_service")
def templates(service_id: str) -> Any:
    link = _link_or_404(service_id)
    form = _templates_form(service_id, link.templates or {})
    if form.validate_on_submit():
        chosen = {scenario: {channel: form[f"{scenario}_{channel}"].data or None for channel in CHANNEL_ORDER}
                  for scenario in domain.SCENARIOS}
        done, _ = perform(lambda: case_events.set_templates(service_id, chosen), form, translate=words.refusal,
                          confirm=_l("Templates saved"))
        if done:
            return _to_settings(service_id)
    return render_template("case_events/templates.html", service=current_service(), form=form,
                           scenarios=domain.SCENARIOS, channels=CHANNEL_ORDER, words=words)


@bp.post(SETTINGS + "/subscribe")
@service_permission_required("manage_service")
def subscribe(service_id: str) -> Any:
    if ConfirmForm().validate_on_submit():
        perform(lambda: case_events.register(service_id), translate=words.refusal,
                confirm=_l("Asked Open Notificaties for the subscription"))
    return _to_settings(service_id)


@bp.post(SETTINGS + "/check")
@service_permission_required("manage_service")
def check(service_id: str) -> Any:
    if ConfirmForm().validate_on_submit():
        perform(lambda: case_events.check(service_id), translate=words.refusal,
                confirm=_l("Read the subscription back from Open Notificaties"))
    return _to_settings(service_id)


@bp.post(SETTINGS + "/remove")
@service_permission_required("manage_service")
def remove(service_id: str) -> Any:
    if ConfirmForm().validate_on_submit():
        perform(lambda: case_events.remove_link(service_id), translate=words.refusal, confirm=_l("Link removed"))
    return _to_settings(service_id)
