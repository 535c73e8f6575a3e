"""Received text messages (with the service's inbound_sms permission): the numbers heard from in
the last 7 days, newest first; a conversation per number with the texts we sent it; a reply from one
of the service's sms templates, sent as a one-off send is."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, redirect, render_template, url_for
from flask_babel import gettext as _

from console.auth import current_permissions, current_service, service_permission_required
from console.found import template_or_404
from console.messages.labels import status_label
from console.send_one import flow
from models import conversations
from models.db import is_uuid
from models.notification import ReceivedText
from models.service import Service
from models.template import Template, TemplateVersion
from pipeline.domain.recipients import InvalidRecipient, validate_phone_number

bp = Blueprint("conversations", __name__)


def _receiving(service: Service) -> Service:
    if not service.has_permission("inbound_sms"):
        abort(404)
    return service


def _text(service: Service, text_id: str) -> ReceivedText:
    text = conversations.find_received(service, text_id) if is_uuid(text_id) else None
    if text is None:
        abort(404)
    return text


def e164_of(user_number: str) -> str | None:
    """The number as sent sms store it; gateways may leave out the "+" of an international number."""
    for candidate in (user_number, f"+{user_number}"):
        try:
            return validate_phone_number(candidate).e164
        except InvalidRecipient:
            continue
    return None


@bp.get("/services/<service_id>/conversations")
@service_permission_required("view_activity")
def index(service_id: str) -> Any:
    service = _receiving(current_service())
    return render_template("conversations/index.html", service=service, threads=conversations.inbox(service))


@bp.get("/services/<service_id>/conversations/<text_id>")
@service_permission_required("view_activity")
def conversation(service_id: str, text_id: str) -> Any:
    service = _receiving(current_service())
    text = _text(service, text_id)
    messages = conversations.conversation(service, text.user_number, e164_of(text.user_number))
    return render_template("conversations/conversation.html", service=service, text=text, messages=messages,
                           can_reply="send_messages" in current_permissions(), status_label=status_label)


@bp.get("/services/<service_id>/conversations/<text_id>/reply")
@service_permission_required("send_messages")
def choose_reply(service_id: str, text_id: str) -> Any:
    service = _receiving(current_service())
    text = _text(service, text_id)
    versions = (TemplateVersion.select(TemplateVersion, Template).join(Template)
                .where((Template.service == service) & (Template.template_type == "sms")
                       & (Template.archived == False) & (TemplateVersion.version == Template.current_version))  # noqa: E712
                .order_by(TemplateVersion.name))
    return render_template("conversations/choose_reply.html", service=service, text=text, versions=list(versions))


@bp.route("/services/<service_id>/conversations/<text_id>/reply/<template_id>", methods=["GET", "POST"])
@service_permission_required("send_messages")
def reply(service_id: str, text_id: str, template_id: str) -> Any:
    service = _receiving(current_service())
    text = _text(service, text_id)
    version = template_or_404(template_id, types=("sms",))
    back = url_for("conversations.conversation", service_id=service_id, text_id=text_id)
    return flow.run(service, version, lambda notification: redirect(back),
                    fixed_recipient=e164_of(text.user_number) or text.user_number,
                    page={"heading": _("Reply to %(number)s", number=text.user_number), "back": back})
