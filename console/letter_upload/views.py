"""Send a letter the service made itself (a PDF): upload it, see every page as it will print and
what the print checks say, choose the postage, send. The checks, the virus scan and the sending are
the API's own (core/letter_uploads.py, pipeline/stages/sends/letters.py); a refusal is shown in the page's language."""
from __future__ import annotations

import base64
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from flask_babel import gettext as _, lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import RadioField
from wtforms.validators import DataRequired

from console.acting import perform
from console.auth import current_service, current_user, service_permission_required
from console.letter_upload import held
from console.messages import labels
from console.services.refusals import Words, fixed, in_words, translated
from core import letter_uploads
from models.db import is_uuid
from pipeline.domain.errors import Refusal
from pipeline.stages.sends.letters import send_precompiled_pdf
from pipeline.stages.sends.sender import Sender
from workers.letters import enqueue_virus_scan

bp = Blueprint("letter_upload", __name__)

MAX_FILE_NAME = 1000  # the reference column's width: the file name is the letter's reference


class UploadLetterForm(FlaskForm):
    file = FileField(_l("Letter (PDF)"), validators=[FileRequired(_l("Choose a PDF file to upload"))])


class SendLetterForm(FlaskForm):
    postage = RadioField(_l("Postage"), default="second",
                         choices=[(kind, labels.POSTAGE[kind]) for kind in ("first", "second")],
                         validators=[DataRequired(_l("Choose the postage"))])


# The refusals of the upload and the send in the page's language; any other as the service pages show it.
WORDS: dict[str, Words] = {
    "not_a_pdf": fixed(_l("The file is not a PDF that can be read")),
    "letter_too_big": fixed(_l("The file is larger than 5 MB")),
    "letter_virus_found": fixed(_l("The file contains a virus. Nothing has been sent.")),
    "virus_scanner_down": fixed(_l("The file cannot be checked for viruses at the moment: try again in a few minutes")),
}


def refusal(message: str) -> str:
    """A refusal of the upload or the send, in the page's language."""
    return in_words(message, WORDS) or translated(message)


# What the print checks find, in the page's language.
PRINT_PROBLEMS: dict[str, Words] = {
    "page_outside_printable_area": lambda values: _("Page %(page)s has content outside the printable area",
                                                    page=values["page"]),
    "page_not_a4_portrait": lambda values: _("Page %(page)s is not A4 portrait", page=values["page"]),
    "page_unchecked": lambda values: _("Page %(page)s could not be checked", page=values["page"]),
    "letter_too_long": lambda values: _("The letter is longer than %(sheets)s sheets", sheets=values["sheets"]),
}


def print_problem(problem: Refusal) -> str:
    return in_words(problem, PRINT_PROBLEMS) or problem


def _sender() -> Sender:
    return Sender.console_user(current_service(), current_user().id)


@bp.route("/services/<service_id>/upload-letter", methods=["GET", "POST"])
@service_permission_required("send_messages")
def upload(service_id: str) -> Any:
    form = UploadLetterForm()
    status = 200
    if form.validate_on_submit():
        # Read one byte past the limit: enough to know it is too big without reading all of it.
        data = form.file.data.read(letter_uploads.MAX_PDF_BYTES + 1)
        name = (form.file.data.filename or "letter.pdf")[:MAX_FILE_NAME]
        done, checked = perform(lambda: letter_uploads.check_letter_upload(_sender(), data), form, translate=refusal)
        if done:
            upload_id = held.keep(service_id, held.HeldLetter(name, data, checked.pages, checked.sheets,
                                                              checked.problems))
            return redirect(url_for("letter_upload.preview", service_id=service_id, upload_id=upload_id))
        status = 400
    return render_template("letter_upload/upload.html", service=current_service(), form=form), status


def _held(service_id: str, upload_id: str) -> held.HeldLetter:
    letter = held.fetch(service_id, upload_id) if is_uuid(upload_id) else None
    if letter is None:
        abort(404)  # never uploaded, another service's, or kept past its hour
    return letter


@bp.route("/services/<service_id>/upload-letter/<upload_id>", methods=["GET", "POST"])
@service_permission_required("send_messages")
def preview(service_id: str, upload_id: str) -> Any:
    letter = _held(service_id, upload_id)
    form = SendLetterForm()
    if not letter.problems and form.validate_on_submit():
        if not held.claim(service_id, upload_id):
            abort(404)  # sent already, by a second click
        done, notification = perform(lambda: send_precompiled_pdf(
            _sender(), letter.file_name, letter.data, form.postage.data, enqueue_virus_scan), form, translate=refusal)
        if done:
            held.forget(service_id, upload_id)
            flash(_("Your letter has been sent"), "ok")
            return redirect(url_for("messages.notification", service_id=service_id, notification_id=notification.id))
        held.unclaim(service_id, upload_id)
    pages = ["data:image/png;base64," + base64.b64encode(png).decode()
             for png in letter_uploads.preview_pages(letter.data)]
    return render_template("letter_upload/preview.html", service=current_service(), letter=letter, form=form,
                           pages=pages, problems=[print_problem(p) for p in letter.problems])
