"""The messages report (CSV) of the list's filters: streamed at once when short, otherwise built by a
worker while a progress page (polled) waits, then offered for download."""
from __future__ import annotations

import dataclasses
from typing import Any

from flask import Response, abort, redirect, render_template, stream_with_context, url_for

from config import get_settings
from console.auth import current_service, current_user, service_permission_required
from console.messages.listing import filter_args, message_search, search_form
from console.messages.blueprint import bp
from models.db import database, is_uuid, utcnow
from models.message_report import MessageReport
from pipeline.message_report import report_key, stream_csv
from pipeline.message_search import count_matches
from pipeline.storage import BlobNotFound, report_storage
from workers.enqueue import enqueue_after_commit
from workers.reports import build_message_report


def _filename(service: Any, stamp: Any) -> str:
    return f"messages-{service.id}-{stamp:%Y-%m-%dT%H%M}.csv"


@bp.get("/services/<service_id>/notifications.csv")
@service_permission_required("view_activity")
def report(service_id: str) -> Any:
    service = current_service()
    form = search_form()
    if not form.validate():
        return redirect(url_for("messages.index", service_id=service_id, **filter_args()))
    search = message_search(form)
    threshold = get_settings().message_report_background_rows
    if count_matches(service, search, at_most=threshold) <= threshold:
        return Response(stream_with_context(stream_csv(service, search)), mimetype="text/csv", headers={
            "Content-Disposition": f'attachment; filename="{_filename(service, utcnow())}"'})
    asked_at = utcnow()
    with database.atomic():
        made = MessageReport.create(service=service, created_by_user_id=current_user().id, created_at=asked_at,
                                    filters=dataclasses.replace(search, created_before=asked_at).as_dict())
        enqueue_after_commit(build_message_report, str(made.id))
    return redirect(url_for("messages.report_progress", service_id=service_id, report_id=made.id))


def _report_or_404(report_id: str) -> MessageReport:
    found = MessageReport.get_or_none((MessageReport.id == report_id) & (MessageReport.service == current_service())
                                      ) if is_uuid(report_id) else None
    if found is None:
        abort(404)
    return found


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
    return Response(data, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{_filename(current_service(), found.created_at)}"'})
