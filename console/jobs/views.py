"""Bulk sending from a spreadsheet: pick a template, upload a file, see every problem or a preview,
then send now, schedule (up to 7 days ahead) or cancel. The job pages are in job_pages.py."""
from __future__ import annotations

import datetime
from typing import Any

from flask import abort, redirect, render_template, url_for
from flask_babel import get_locale, lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import SelectField

from console import times
from console.acting import perform
from console.auth import current_service, current_user, service_permission_required
from console.found import template_or_404
from console.jobs import (
    alternatives,
    examples,  # noqa: F401  (its routes join bp)
    job_pages,  # noqa: F401  (its routes join bp)
    uploads,
)
from console.jobs.blueprint import bp
from console.jobs.first_message import first_message
from console.jobs.refusals import problem_kinds
from core.jobs import create_and_start_job
from models.db import is_uuid, utcnow
from models.template import Template, TemplateVersion, find_version
from pipeline.domain.rendering import normalise_key
from pipeline.stages.jobs.columns import (
    ADDRESS_COLUMNS,
    RECIPIENT_COLUMN,
    needed_columns,
    other_names,
    shown,
    template_columns,
)
from pipeline.stages.jobs.upload import BULK_CHANNELS, check_upload

PREVIEW_ROWS = 5
SHOWN_PROBLEMS = 500  # kinds of problem: the first 500, and how many more there are


class UploadForm(FlaskForm):
    file = FileField(_l("Spreadsheet (CSV, XLSX or ODS)"), validators=[FileRequired(_l("Choose a file to upload"))])
    # The alternatives (console/jobs/alternatives.py sets the choices, or drops those not offered).
    fallback_email = SelectField(_l("Then send this email"), default="")
    fallback_letter = SelectField(_l("Then send this letter"), default="")


def schedule_choices(now: datetime.datetime) -> list[tuple[str, str]]:
    """Now, or each whole hour of the service's clock in the next 7 days. The values are UTC, as stored;
    the hours are counted in UTC, so a change to or from summer time neither skips nor repeats one."""
    on_the_wall = times.local(now).replace(minute=0, second=0, microsecond=0) + datetime.timedelta(hours=1)
    first = times.to_utc(on_the_wall.replace(tzinfo=None))
    slots = [first + datetime.timedelta(hours=n) for n in range(7 * 24)]
    return [("now", str(_l("Now")))] + [(slot.strftime("%Y-%m-%dT%H:%M"), times.when(slot)) for slot in slots]


class SendForm(FlaskForm):
    when = SelectField(_l("When to send"))


def _version(template_id: str, version: int | None = None) -> TemplateVersion:
    return template_or_404(template_id, version, types=BULK_CHANNELS)


def _columns(version: TemplateVersion) -> list[str]:
    """The columns a file needs, in the page's language: the recipient's (a letter's first three address
    lines) and the placeholders."""
    return template_columns(version).shown(str(get_locale()))


def _column_help(version: TemplateVersion) -> dict[str, Any]:
    """The columns a file needs (each with the one that may stand for it: the one list the upload checks
    against), and the other names the recipient's column may have, for jobs/_columns.html."""
    language = str(get_locale())
    return {"columns": _columns(version),
            "needed": [(shown(need.column, language), shown(need.instead, language) if need.instead else None)
                       for need in needed_columns(version)],
            "recipient_names": other_names(RECIPIENT_COLUMN[version.template.template_type], language),
            "last_line": shown(ADDRESS_COLUMNS[-2], language)}


@bp.get("/services/<service_id>/jobs/new")
@service_permission_required("send_messages")
def choose_template(service_id: str) -> Any:
    templates = (Template.select().where((Template.service == service_id) & (Template.archived == False)  # noqa: E712
                                         & Template.template_type.in_(BULK_CHANNELS))
                 .order_by(Template.created_at))
    versions = [v for v in (find_version(service_id, t.id) for t in templates) if v is not None]
    return render_template("jobs/choose_template.html", service=current_service(), versions=versions)


@bp.route("/services/<service_id>/send/<template_id>/upload", methods=["GET", "POST"])
@service_permission_required("send_messages")
def upload(service_id: str, template_id: str) -> Any:
    version = _version(template_id)
    form = UploadForm()
    offered = alternatives.offer(form, current_service(), version.template.template_type)
    checked = None
    if form.validate_on_submit():
        data = form.file.data.read()
        file_name = form.file.data.filename or "upload"
        others = alternatives.chosen(form, offered)
        checked = check_upload(current_service(), version, file_name, data, others)
        if not checked.problems:
            upload_id = uploads.keep(service_id, uploads.Upload(file_name, str(version.template.id), version.version,
                                                                checked, tuple(str(o.template.id) for o in others)))
            return redirect(url_for("jobs.check", service_id=service_id, template_id=template_id,
                                    upload_id=upload_id))
    problems = problem_kinds(checked.problems if checked else [])
    return render_template(
        "jobs/upload.html", service=current_service(), version=version, form=form, **_column_help(version),
        alternatives=[form[alternatives.FIELDS[other]] for other in offered],
        problems=problems[:SHOWN_PROBLEMS], more_problems=max(0, len(problems) - SHOWN_PROBLEMS),
        preview=_preview(version, checked.rows) if checked and checked.rows else None,
    ), 400 if problems else 200


def _preview(version: TemplateVersion, rows: list[list]) -> dict[str, Any]:
    """The first rows as the table shows them: row number, then each of the template's columns."""
    columns = template_columns(version)
    names = columns.recipient + columns.placeholders
    shown = []
    for offset, (recipient, values, *_) in enumerate(rows[:PREVIEW_ROWS]):
        by_key = {normalise_key(key): value for key, value in values.items()}
        by_key.setdefault(normalise_key(names[0]), recipient)
        shown.append([offset + 2, *(by_key.get(normalise_key(name), "") for name in names)])
    return {"rows": shown, "count": len(rows)}


@bp.route("/services/<service_id>/send/<template_id>/upload/<upload_id>", methods=["GET", "POST"])
@service_permission_required("send_messages")
def check(service_id: str, template_id: str, upload_id: str) -> Any:
    kept = uploads.fetch(service_id, upload_id) if is_uuid(upload_id) else None
    if kept is None or kept.template_id != template_id:
        abort(404)
    version = _version(template_id, kept.template_version)
    form = SendForm()
    form.when.choices = schedule_choices(utcnow())
    if form.validate_on_submit():
        if not uploads.claim(service_id, upload_id):  # the same upload sent twice at once: one job only
            return redirect(url_for("jobs.index", service_id=service_id))
        when = None if form.when.data == "now" else datetime.datetime.fromisoformat(form.when.data)
        done, job = perform(lambda: create_and_start_job(service_id, template_id, version.version, kept.file_name,
                                                         kept.checked, user_id=current_user().id,
                                                         scheduled_for=when), form)
        if done:
            uploads.forget(service_id, upload_id)
            return redirect(url_for("jobs.job", service_id=service_id, job_id=job.id))
        uploads.unclaim(service_id, upload_id)
    return render_template(
        "jobs/check.html", service=current_service(), version=version, form=form, file_name=kept.file_name,
        columns=_columns(version), preview=_preview(version, kept.checked.rows),
        first=first_message(current_service(), version, kept.checked.rows[0]),
        alternatives=alternatives.described(kept.fallback_templates, kept.checked.rows),
    )


@bp.post("/services/<service_id>/send/<template_id>/upload/<upload_id>/discard")
@service_permission_required("send_messages")
def discard(service_id: str, template_id: str, upload_id: str) -> Any:
    if is_uuid(upload_id):
        uploads.forget(service_id, upload_id)
    return redirect(url_for("jobs.upload", service_id=service_id, template_id=template_id))
