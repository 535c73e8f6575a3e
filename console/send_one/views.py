"""Send one message: choose a template, fill in the recipient and placeholders (or use my own
details), preview, send; then the message's page."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, url_for

from console.auth import current_service, current_user, service_permission_required
from console.found import template_or_404
from console.send_one import flow
from models.notification import Notification
from models.template import Template, TemplateVersion

bp = Blueprint("send_one", __name__)


def message_page(service_id: str, notification: Notification) -> Any:
    return redirect(url_for("messages.notification", service_id=service_id, notification_id=notification.id))


@bp.get("/services/<service_id>/send")
@service_permission_required("send_messages")
def choose(service_id: str) -> Any:
    versions = (TemplateVersion.select(TemplateVersion, Template).join(Template)
                .where((Template.service == service_id) & (Template.archived == False)  # noqa: E712
                       & (TemplateVersion.version == Template.current_version))
                .order_by(TemplateVersion.name))
    service = current_service()
    return render_template("send_one/choose.html", service=service, versions=list(versions),
                           own_mobile=flow.own_details(service, current_user(), "sms"))


@bp.route("/services/<service_id>/send/<template_id>/one", methods=["GET", "POST"])
@service_permission_required("send_messages")
def start(service_id: str, template_id: str) -> Any:
    service = current_service()
    version = template_or_404(template_id)
    return flow.run(service, version, lambda notification: message_page(service_id, notification), page={})
