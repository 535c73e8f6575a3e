"""The editor's live preview: the page's script posts the form as it is typed and shows the fragment
this answers (without a script, the editor's Preview button shows the same on the whole page)."""
from __future__ import annotations

from typing import Any

from flask import abort, render_template, request

from console.auth import current_service, service_permission_required
from console.template_editor.blueprint import bp
from console.template_editor.forms import TYPE_LABELS
from console.template_editor.preview import make_preview
from models.db import is_uuid
from models.service import LetterContact

BODY_LIMIT = 100_000  # far beyond any template (an sms stops at 918 characters); a preview is not a file upload


@bp.post("/services/<service_id>/templates/preview/<template_type>")
@service_permission_required("manage_templates")
def live_preview(service_id: str, template_type: str) -> Any:
    if template_type not in TYPE_LABELS:
        abort(404)
    body, subject = request.form.get("body", ""), request.form.get("subject")
    if len(body) > BODY_LIMIT or len(subject or "") > BODY_LIMIT:
        abort(413)
    contact_id = request.form.get("letter_contact", "")
    contact = (LetterContact.get_or_none((LetterContact.id == contact_id)
                                         & (LetterContact.service == current_service()))
               if is_uuid(contact_id) else None)
    preview = make_preview(current_service(), template_type, subject=subject, body=body, letter_contact=contact)
    return render_template("template_editor/_preview.html", preview=preview)
