"""Organisations in the console: the list (every one, with a search, for platform admins), one
organisation's page (settings, services, members, domains, brands, go-live requests), its usage and
CSV, the organisation admin's go-live decision, and the platform admin's search for users and services.
A new organisation, its settings page, a member's role and a service taken out are in settings_views.py
on the same blueprint.

A user who is not a member of an organisation (nor a platform admin) gets 404 on every page of it.
"""
from __future__ import annotations

import datetime
from typing import Any

from flask import Response, abort, redirect, render_template, request, url_for
from flask_babel import format_currency, format_date, gettext as _, lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length

from console import downloads, times
from console.auth import current_user, login_required, platform_admin_required
from console.organisations import history_wording, settings_views  # settings_views: its routes join bp
from console.organisations.blueprint import bp
from console.organisations.shared import KIND_NAMES, ROLE_NAMES, ConfirmForm, may_manage, perform, visible
from core import organisation_members as members, organisations as orgs
from core.go_live import approve_for_organisation, check_organisation_step, reject_go_live
from core.organisation_usage import organisation_usage, usage_csv as written_usage
from core.search import search
from models.appearance import EmailBrand, LetterBrand
from models.db import is_uuid
from models.go_live import GoLiveRequest
from models.organisation import Organisation
from models.service import Service, find_service_by_name
from pipeline.domain.errors import BadRequestError, NoResultFound
from workers.platform_email import send_platform_email

CURRENCY = "EUR"


class DomainForm(FlaskForm):
    domain = StringField(_l("Email domain"), validators=[DataRequired(_l("Enter an email domain")), Length(max=253)])


class MemberForm(FlaskForm):
    email_address = StringField(_l("Email address"), validators=[
        DataRequired(_l("Enter an email address")), Length(max=255)])
    role = SelectField(_l("Role"), choices=list(ROLE_NAMES.items()))


class BrandForm(FlaskForm):
    brand = SelectField(_l("Brand"))


class ServiceForm(FlaskForm):
    service = StringField(_l("Name or id of the service"), validators=[
        DataRequired(_l("Enter the name or id of a service")), Length(max=255)])


class RejectForm(FlaskForm):
    reason = TextAreaField(_l("Why the service cannot go live yet"), validators=[
        DataRequired(_l("Enter the reason, it is sent to the service's team")), Length(max=2000)])


def _awaiting(organisation: Organisation) -> list[GoLiveRequest]:
    return list(GoLiveRequest.select(GoLiveRequest, Service).join(Service)
                .where((GoLiveRequest.organisation_id == organisation.id) & (GoLiveRequest.status == "pending")
                       & GoLiveRequest.organisation_approved_at.is_null()).order_by(GoLiveRequest.requested_at))


@bp.get("/organisations")
@login_required
def index() -> Any:
    user, words = current_user(), request.args.get("search", "")
    found = orgs.list_organisations(words) if user.platform_admin else orgs.organisations_of(user)
    return render_template("organisations/index.html", organisations=found, words=words, kinds=KIND_NAMES)


def _brand_choices(organisation: Organisation) -> list[tuple[str, str]]:
    """The brands not offered yet, as "email:<id>" or "letter:<id>"."""
    email, letter = members.brands_of(organisation)
    offered = {b.id for b in email} | {b.id for b in letter}
    return ([(f"email:{b.id}", _("Email: %(name)s", name=b.name))
             for b in EmailBrand.select().order_by(EmailBrand.name) if b.id not in offered]
            + [(f"letter:{b.id}", _("Letter: %(name)s", name=b.name))
               for b in LetterBrand.select().order_by(LetterBrand.name) if b.id not in offered])


def _brand_form(organisation: Organisation, formdata: bool = True) -> BrandForm:
    form = BrandForm() if formdata else BrandForm(formdata=None)
    form.brand.choices = _brand_choices(organisation)
    return form


def _page(organisation: Organisation, **forms: FlaskForm) -> Any:
    email_brands, letter_brands = members.brands_of(organisation)
    forms = {"domain_form": DomainForm(formdata=None), "member_form": MemberForm(formdata=None),
             "brand_form": _brand_form(organisation, formdata=False), "service_form": ServiceForm(formdata=None),
             **forms}
    return render_template("organisations/show.html", organisation=organisation, kinds=KIND_NAMES,
                           settings=settings_views.describe(organisation), roles=ROLE_NAMES,
                           services=orgs.services_in(organisation),
                           members=members.members_of(organisation), domains=orgs.domains_of(organisation),
                           email_brands=email_brands, letter_brands=letter_brands,
                           awaiting=_awaiting(organisation), may_manage=may_manage(organisation), **forms)


@bp.get("/organisations/<organisation_id>")
@login_required
def show(organisation_id: str) -> Any:
    return _page(visible(organisation_id))


@bp.post("/organisations/<organisation_id>/domains")
@login_required
def add_domain(organisation_id: str) -> Any:
    organisation, form = visible(organisation_id, manage=True), DomainForm()
    if form.validate_on_submit():
        done = perform(lambda: orgs.add_domain(organisation_id, form.domain.data), form, _l("Domain added"))[0]
        if done:
            return redirect(url_for("organisations.show", organisation_id=organisation_id))
    return _page(organisation, domain_form=form)


@bp.post("/organisations/<organisation_id>/domains/<domain>/remove")
@login_required
def remove_domain(organisation_id: str, domain: str) -> Any:
    visible(organisation_id, manage=True)
    if ConfirmForm().validate_on_submit():
        perform(lambda: orgs.remove_domain(organisation_id, domain), confirm=_l("Domain removed"))
    return redirect(url_for("organisations.show", organisation_id=organisation_id))


@bp.post("/organisations/<organisation_id>/members")
@login_required
def add_member(organisation_id: str) -> Any:
    organisation, form = visible(organisation_id, manage=True), MemberForm()
    if form.validate_on_submit():
        done = perform(lambda: members.add_member(organisation_id, form.email_address.data, form.role.data), form,
                       _l("Member added"))[0]
        if done:
            return redirect(url_for("organisations.show", organisation_id=organisation_id))
    return _page(organisation, member_form=form)


@bp.post("/organisations/<organisation_id>/members/<user_id>/remove")
@login_required
def remove_member(organisation_id: str, user_id: str) -> Any:
    visible(organisation_id, manage=True)
    if ConfirmForm().validate_on_submit():
        perform(lambda: members.remove_member(organisation_id, user_id), confirm=_l("Member removed"))
    return redirect(url_for("organisations.show", organisation_id=organisation_id))


@bp.post("/organisations/<organisation_id>/brands")
@login_required
def add_brand(organisation_id: str) -> Any:
    organisation = visible(organisation_id, manage=True)
    form = _brand_form(organisation)
    if form.validate_on_submit():
        kind, _colon, brand_id = form.brand.data.partition(":")
        done = perform(lambda: members.add_brand(organisation_id, kind, brand_id), form, _l("Brand added"))[0]
        if done:
            return redirect(url_for("organisations.show", organisation_id=organisation_id))
    return _page(organisation, brand_form=form)


@bp.post("/organisations/<organisation_id>/brands/<kind>/<brand_id>/remove")
@login_required
def remove_brand(organisation_id: str, kind: str, brand_id: str) -> Any:
    visible(organisation_id, manage=True)
    if ConfirmForm().validate_on_submit():
        perform(lambda: members.remove_brand(organisation_id, kind, brand_id), confirm=_l("Brand removed"))
    return redirect(url_for("organisations.show", organisation_id=organisation_id))


@bp.post("/organisations/<organisation_id>/services")
@login_required
def add_service(organisation_id: str) -> Any:
    organisation, form = visible(organisation_id, platform=True), ServiceForm()
    if form.validate_on_submit():
        wanted = form.service.data.strip()
        found = find_service_by_name(wanted) or (Service.get_or_none(Service.id == wanted) if is_uuid(wanted)
                                                 else None)
        if found is None:
            form.service.errors = [_("There is no service with this name or id")]
        else:
            done = perform(lambda: orgs.add_service(organisation_id, str(found.id)), form,
                           _l("Service added to the organisation"))[0]
            if done:
                return redirect(url_for("organisations.show", organisation_id=organisation_id))
    return _page(organisation, service_form=form)


def _month() -> tuple[int, int]:
    raw = request.args.get("month", "")
    try:
        chosen = datetime.date.fromisoformat(f"{raw}-01")
    except ValueError:
        chosen = datetime.date.today()
    return chosen.year, chosen.month


def _months_back(count: int = 12) -> list[str]:
    today = datetime.date.today()
    return [f"{today.year - (today.month - i <= 0):04d}-{(today.month - i - 1) % 12 + 1:02d}" for i in range(count)]


@bp.get("/organisations/<organisation_id>/usage")
@login_required
def usage(organisation_id: str) -> Any:
    organisation = visible(organisation_id)
    year, month = _month()
    figures = organisation_usage(str(organisation.id), year, month)
    return render_template(
        "organisations/usage.html", organisation=organisation, usage=figures, months=_months_back(),
        money=lambda value: format_currency(value, CURRENCY),
        month_name=lambda m: format_date(datetime.date.fromisoformat(f"{m}-01"), "LLLL yyyy"))


@bp.get("/organisations/<organisation_id>/usage.csv")
@login_required
def usage_csv(organisation_id: str) -> Response:
    organisation = visible(organisation_id)
    year, month = _month()
    figures = organisation_usage(str(organisation.id), year, month)
    written = downloads.written(organisation.time_zone)
    return downloads.csv_download(written_usage(figures, written),
                                  downloads.file_name(_("usage"), organisation.name, f"{year:04d}-{month:02d}"))


def _service_awaiting(organisation: Organisation, service_id: str) -> GoLiveRequest:
    row = next((r for r in _awaiting(organisation) if str(r.service.id) == service_id), None)
    if row is None:
        abort(404)
    try:
        check_organisation_step(current_user(), row.service)
    except (NoResultFound, BadRequestError):
        abort(404)  # the same rule as the admin API's; a decision not yours to make is no page for you
    return row


def _decide_page(organisation: Organisation, row: GoLiveRequest, approve_form: FlaskForm,
                 reject_form: FlaskForm) -> Any:
    return render_template("organisations/go_live.html", organisation=organisation, row=row,
                           approve_form=approve_form, reject_form=reject_form)


@bp.get("/organisations/<organisation_id>/go-live/<service_id>")
@login_required
def go_live(organisation_id: str, service_id: str) -> Any:
    organisation = visible(organisation_id, manage=True)
    return _decide_page(organisation, _service_awaiting(organisation, service_id), ConfirmForm(), RejectForm())


@bp.post("/organisations/<organisation_id>/go-live/<service_id>/approve")
@login_required
def approve(organisation_id: str, service_id: str) -> Any:
    organisation = visible(organisation_id, manage=True)
    row, form = _service_awaiting(organisation, service_id), ConfirmForm()
    if form.validate_on_submit():
        done = perform(lambda: approve_for_organisation(service_id, send_email=send_platform_email), form,
                       _l("Approved for the organisation: a platform admin decides next"))[0]
        if done:
            return redirect(url_for("organisations.show", organisation_id=organisation_id))
    return _decide_page(organisation, row, form, RejectForm(formdata=None))


@bp.post("/organisations/<organisation_id>/go-live/<service_id>/reject")
@login_required
def reject(organisation_id: str, service_id: str) -> Any:
    organisation = visible(organisation_id, manage=True)
    row, form = _service_awaiting(organisation, service_id), RejectForm()
    if form.validate_on_submit():
        done = perform(lambda: reject_go_live(service_id, form.reason.data, send_email=send_platform_email), form,
                       _l("Request turned down; the team has been told by email"))[0]
        if done:
            return redirect(url_for("organisations.show", organisation_id=organisation_id))
    return _decide_page(organisation, row, ConfirmForm(formdata=None), form)


ACTIONS = {
    "organisation.create": _l("Organisation made"),
    "organisation.update": _l("Settings changed"),
    "domain.add": _l("Email domain added"),
    "domain.remove": _l("Email domain removed"),
    "member.add": _l("Member added"),
    "member.role": _l("Member's role changed"),
    "member.remove": _l("Member removed"),
    "email_brand.add": _l("Email brand offered"),
    "email_brand.remove": _l("Email brand no longer offered"),
    "letter_brand.add": _l("Letter brand offered"),
    "letter_brand.remove": _l("Letter brand no longer offered"),
    "service.join": _l("Service joined"),
    "service.leave": _l("Service left"),
}


@bp.get("/organisations/<organisation_id>/history")
@login_required
def history(organisation_id: str) -> Any:
    organisation = visible(organisation_id, manage=True)
    rows = [(times.when(event.created_at, time_zone=organisation.time_zone), event.actor_name,
             ACTIONS.get(event.action, event.action), history_wording.changes(event))
            for event in members.organisation_history(str(organisation.id), limit=200)]
    return render_template("organisations/history.html", organisation=organisation, rows=rows)


@bp.get("/platform-admin/search")
@platform_admin_required
def find() -> Any:
    words = request.args.get("q", "")
    return render_template("organisations/search.html", words=words, found=search(words))

