"""The messages report (CSV) of the list's filters: streamed at once when short, otherwise built by a
worker while a progress page (polled) waits, then offered for download."""
from __future__ import annotations

from typing import Any

from flask import Response, abort, redirect, render_template, url_for
from flask_babel import get_locale, gettext as _

from console import downloads
from console.auth import current_service, current_user, service_permission_required
from console.messages.blueprint import bp
from console.messages.listing import filter_args, message_search, search_form
from core.message_reports import background_report, find_report
from models.db import utcnow
from models.message_report import MessageReport
from pipeline.domain.errors import NoResultFound
from pipeline.infrastructure.storage import BlobNotFound, report_storage
from pipeline.stages.message_report import report_key, stream_csv


def _filename(service: Any, asked_at: Any) -> str:
    """"berichten-<service>-2026-12-07-1538.csv": the moment asked for on the service's clock."""
    return downloads.file_name(_("messages"), str(service.id), downloads.stamp(asked_at, service.time_zone))


@bp.get("/services/<service_id>/notifications.csv")
@service_permission_required("view_activity")
def report(service_id: str) -> Any:
    service = current_service()
    form = search_form()
    if not form.validate():
        return redirect(url_for("messages.index", service_id=service_id, **filter_args()))
    search = message_search(form)
    made = background_report(service, current_user().id, search, str(get_locale()))
    if made is None:
        return downloads.csv_download(stream_csv(service, search, downloads.written(service.time_zone)),
                                      _filename(service, utcnow()))
    return redirect(url_for("messages.report_progress", service_id=service_id, report_id=made.id))


def _report_or_404(report_id: str) -> MessageReport:
    try:
        return find_report(current_service(), report_id)
    except NoResultFound:
        abort(404)


@bp.get("/services/<service_id>/notifications/reports/<report_id>")
@service_permission_required("view_activity")
def report_progress(service_id: str, report_id: str) -> Any:
    return render_template("messages/report.html", service=current_service(), report=_report_or_404(report_id))


@bp.get("/services/<service_id>/notifications/reports/<report_id>/download")
@service_permission_required("view_activity")
def report_file(service_id: str, report_id: str) -> Response:
    found = _report_or_404(report_id)
    try:
        data = report_storage().get(report_key(found))
    except BlobNotFound:
        abort(404)
    return downloads.csv_download(data, _filename(current_service(), found.created_at))
