"""A message's page: its content, template, sender, status changes (watched live), provider, a letter's
validation failure and PDF. The list, the CSV report and cancelling live beside it in this area."""
from __future__ import annotations

from typing import Any

from flask import Response, abort, render_template

from console import security_headers
from console.auth import current_permissions, current_service, service_permission_required
from console.messages import (
    cancelling,  # noqa: F401  (its routes join bp)
    chain,
    labels,
    listing,  # noqa: F401  (its routes join bp)
    reports,  # noqa: F401  (its routes join bp)
)
from console.messages.blueprint import bp, find_or_404
from core import message_timeline
from core.preview import preview
from models.db import utcnow
from models.notification import Notification
from models.template import TemplateVersion
from pipeline.domain import statuses
from pipeline.domain.errors import BadRequestError
from pipeline.infrastructure.message_details import senders, template_names
from pipeline.infrastructure.storage import BlobNotFound, letter_pdf_key, letter_storage
from pipeline.stages import cancel


def _status_context(notification: Notification) -> dict[str, Any]:
    channel = notification.notification_type
    its_chain = chain.chain(notification)
    return {
        "notification": notification,
        "status_text": labels.status_label(channel, notification.status),
        "steps": [(labels.step_label(channel, step.kind), step.at) for step in message_timeline.timeline(notification)],
        # A failed message whose next alternative is still to be sent is watched until it is.
        "final": message_timeline.is_final(notification) and not its_chain["step_coming"],
        **its_chain,
    }


def _pdf_shown(notification: Notification) -> bool:
    # An upload is not offered before the virus scan has passed it (a failed one is quarantined).
    return notification.notification_type == "letter" and notification.status != statuses.PENDING_VIRUS_CHECK


def _email_html(notification: Notification) -> str | None:
    """A sent email as its recipient got it: its template filled in with its personalisation, in the
    service's language and brand, as the send made it (None for other channels, or once that is gone)."""
    if notification.notification_type != "email" or notification.template_id is None:
        return None
    version = TemplateVersion.get_or_none((TemplateVersion.template == notification.template_id)
                                          & (TemplateVersion.version == notification.template_version))
    if version is None:
        return None
    try:
        shown = preview(notification.service, version, notification.personalisation or {})
    except BadRequestError:
        return None
    security_headers.shows_email_preview()
    return shown.html


def cancel_offered(notification: Notification) -> bool:
    """Whether the page offers the cancel button (the cancel itself checks again, in the database)."""
    return cancel.refusal(notification, utcnow()) is None


@bp.get("/services/<service_id>/notifications/<notification_id>")
@service_permission_required("view_activity")
def notification(service_id: str, notification_id: str) -> Any:
    found = find_or_404(notification_id)
    template_name = template_names([found]).get((str(found.template_id), found.template_version))
    return render_template(
        "messages/notification.html", service=current_service(), channel=labels.CHANNELS[found.notification_type],
        postage=labels.POSTAGE.get(found.postage or "", found.postage),
        template_name=template_name, sender=senders([found]).get(str(found.id)),
        has_pdf=_pdf_shown(found) and letter_storage().exists(letter_pdf_key(found.id)), email_html=_email_html(found),
        may_cancel="send_messages" in current_permissions() and cancel_offered(found), **_status_context(found))


@bp.get("/services/<service_id>/notifications/<notification_id>/status")
@service_permission_required("view_activity")
def status(service_id: str, notification_id: str) -> Any:
    """The page's status section alone, fetched again every few seconds while the status may change."""
    return render_template("messages/_status.html", **_status_context(find_or_404(notification_id)))


@bp.get("/services/<service_id>/notifications/<notification_id>/letter.pdf")
@service_permission_required("view_activity")
def letter_pdf(service_id: str, notification_id: str) -> Response:
    found = find_or_404(notification_id)
    if not _pdf_shown(found):
        abort(404)
    try:
        data = letter_storage().get(letter_pdf_key(found.id))
    except BlobNotFound:
        abort(404)
    return Response(data, mimetype="application/pdf", headers={
        "Content-Disposition": f'inline; filename="letter-{found.id}.pdf"'})
