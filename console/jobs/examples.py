"""The example file of a template, CSV or XLSX, downloaded from its upload page: its columns named in
the page's language, and a row the upload takes as it is, to the downloader's own email address or mobile
number, or a letter to the service's own address (pipeline/stages/jobs/example.py)."""
from __future__ import annotations

import re
from typing import Any

from flask import Response, abort
from flask_babel import get_locale, gettext as _

from console.auth import current_service, current_user, service_permission_required
from console.found import template_or_404
from console.jobs.blueprint import bp
from console.send_one.flow import own_details
from models.service import LetterContact, default_of
from pipeline.stages.jobs.example import example_csv, example_rows, example_xlsx
from pipeline.stages.jobs.upload import BULK_CHANNELS

MEDIA_TYPES = {"csv": "text/csv; charset=utf-8",
               "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
_NOT_IN_FILE_NAME = re.compile(r"[^A-Za-z0-9]+")


@bp.get("/services/<service_id>/send/<template_id>/example.<kind>")
@service_permission_required("send_messages")
def example(service_id: str, template_id: str, kind: str) -> Any:
    if kind not in MEDIA_TYPES:
        abort(404)
    version = template_or_404(template_id, types=BULK_CHANNELS)
    channel = version.template.template_type
    contact = default_of(LetterContact, current_service()) if channel == "letter" else None
    rows = example_rows(version, str(get_locale()), own_details(current_service(), current_user(), channel),
                        contact.contact_block if contact else None)
    data = example_csv(rows) if kind == "csv" else example_xlsx(rows)
    # An ASCII name for every browser: the template's name with anything else made a hyphen.
    name = _NOT_IN_FILE_NAME.sub("-", version.name).strip("-").lower() or "template"
    prefix = _("example")
    file_name = f"{prefix}-{name}.{kind}"
    return Response(data, content_type=MEDIA_TYPES[kind],
                    headers={"Content-Disposition": f'attachment; filename="{file_name}"'})
