"""The send flow one form goes through, for a one-off send and a reply alike: fill in, preview,
send. Every check and the recording are the v2 API's own (core's send_notification, send_letter),
for a live send made by the signed-in user."""
from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from flask import render_template, request

from console import security_headers
from console.auth import current_user
from console.send_one import alternatives
from console.send_one.fields import add_refusal, api_body, placeholder_fields, recipient_fields, send_form
from core.idempotency import answer_once
from core.preview import Preview, preview
from models.notification import Notification
from models.service import Service, TeamMember
from models.template import TemplateVersion
from models.user import User
from pipeline.domain.errors import ApiError
from pipeline.stages.sends.alternatives import checked_alternatives
from pipeline.stages.sends.letters import checked_letter_address, send_letter
from pipeline.stages.sends.sender import Sender
from pipeline.stages.sends.sending import checked_content, send_notification
from workers.letters import enqueue_letter_pdf
from workers.sending import enqueue_deliveries

Done = Callable[[Notification], Any]


def own_details(service: Service, user: User, channel: str) -> str | None:
    """The user's email address; their account's confirmed mobile number, else the one the service's
    team list has for them."""
    if channel == "email":
        return user.email_address
    if channel != "sms":
        return None
    if user.mobile_number:
        return user.mobile_number
    member = (TeamMember.select(TeamMember.mobile_number)
              .where((TeamMember.service == service) & (TeamMember.email_address == user.email_address)
                     & TeamMember.mobile_number.is_null(False)).first())
    return member.mobile_number if member else None


def _send(service: Service, version: TemplateVersion, body: dict[str, Any]) -> Notification:
    sender = Sender.console_user(service, current_user().id)
    if version.template.template_type == "letter":
        return send_letter(sender, body, enqueue_letter_pdf)
    return send_notification(sender, version.template.template_type, body, enqueue_deliveries).notification


def _send_once(service: Service, version: TemplateVersion, body: dict[str, Any], token: str | None) -> Notification:
    """Send pressed twice (or the page resubmitted) sends one message: the preview's token is the
    API's Idempotency-Key, so a repeat finds the first send's notification."""
    key = f"console-send:{token}" if token else None
    answer, _ = answer_once(service.id, key, lambda: {"id": str(_send(service, version, body).id)})
    return Notification.get_by_id(answer["id"])


def _shown(filled: Preview, address: list[str] | None = None) -> dict[str, Any]:
    if filled.html:
        security_headers.shows_email_preview()
    return {"body": filled.body, "subject": filled.subject, "html": filled.html, "address": address}


def _preview(service: Service, version: TemplateVersion, body: dict[str, Any]) -> dict[str, Any]:
    sender = Sender.console_user(service, current_user().id)
    if version.template.template_type == "letter":
        address = checked_letter_address(sender, body)
        return _shown(preview(service, version, body["personalisation"]), address.lines)
    checked_content(sender, version.template.template_type, body)
    checked_alternatives(sender, version.template.template_type, body)
    return _shown(preview(service, version, body["personalisation"]))


def run(service: Service, version: TemplateVersion, done: Done, *, fixed_recipient: str | None = None,
        page: dict[str, Any]) -> Any:
    """GET shows the form (?mine=1: with my own details); POST's `action` is preview, change or send.
    `fixed_recipient` (a reply's number) is not asked for; `page` goes to the templates as is."""
    channel = version.template.template_type
    # A reply goes back where the text came from: it offers no alternatives.
    extra = alternatives.fields(service, channel) if fixed_recipient is None else {}
    form = send_form(version, request.form if request.method == "POST" else None, extra)
    if fixed_recipient is not None:
        recipient_fields(form, channel)[0].data = fixed_recipient
    own = own_details(service, current_user(), channel) if fixed_recipient is None else None
    context = {"service": service, "version": version, "form": form, "channel": channel, "own": own,
               "fixed_recipient": fixed_recipient, "placeholders": placeholder_fields(form),
               "recipients": recipient_fields(form, channel), "alternatives": alternatives.sections(form), **page}
    action = request.form.get("action")
    if request.method != "POST":
        if own and request.args.get("mine"):
            recipient_fields(form, channel)[0].data = own
        return render_template("send_one/start.html", **context)
    if form.validate_on_submit() and action in ("preview", "send"):
        body = api_body(form, version)
        if fallback := alternatives.body(form):
            body["fallback"] = fallback
        try:
            if action == "send":
                return done(_send_once(service, version, body, request.form.get("send_token")))
            shown = _preview(service, version, body)
        except ApiError as refusal:
            add_refusal(form, channel, [m for m in refusal.messages if not alternatives.add_refusal(form, m)])
            return render_template("send_one/start.html", **context)
        return render_template("send_one/preview.html", preview=shown, send_token=uuid.uuid4(),
                               chosen=alternatives.chosen(form), **context)
    return render_template("send_one/start.html", **context)
