"""GET /v2/notifications/<id>/pdf: a letter's PDF, rendered or as uploaded, once it is ready."""
from __future__ import annotations

from flask import Response

from api.errors import BadRequestError, PDFNotReadyError
from api.openapi import documented
from api.v2.blueprint import v2_blueprint
from api.v2.notifications.get_notification import callers_notification
from api.v2.notifications.notification_schemas import notification_path
from pipeline.domain import statuses
from pipeline.infrastructure.storage import BlobNotFound, letter_pdf_key, letter_storage
from pipeline.stages.letters.stages import pdf_ready

NOT_READY = "PDF not available yet, try again later"
PDF = {"type": "string", "contentMediaType": "application/pdf"}


@v2_blueprint.get("/notifications/<notification_id>/pdf")
@documented("A letter's PDF, once it is ready.", {200: PDF}, media_type="application/pdf",
            path={"notification_id": notification_path["properties"]["id"]})
def get_pdf_for_letter(notification_id: str) -> Response:
    notification = callers_notification(notification_id)
    if notification.notification_type != "letter":
        raise BadRequestError("Notification is not a letter")
    if notification.status == statuses.VIRUS_SCAN_FAILED:
        raise BadRequestError("File did not pass the virus scan")
    if notification.status == statuses.TECHNICAL_FAILURE:
        raise BadRequestError("PDF not available for letters in technical-failure")
    storage = letter_storage()
    if not pdf_ready(notification, storage):
        raise PDFNotReadyError(NOT_READY)
    try:
        data = storage.get(letter_pdf_key(notification.id))
    except BlobNotFound:  # removed between the check and the read (retention purge)
        raise PDFNotReadyError(NOT_READY) from None
    return Response(data, status=200, mimetype="application/pdf")
