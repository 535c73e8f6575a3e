"""A service's history: every change made through the console, the admin API or the CLI."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template
from flask_babel import lazy_gettext as _l

from console import times
from console.auth import current_service, service_permission_required
from console.history import wording
from core.history import service_history

bp = Blueprint("history", __name__)

PAGE_SIZE = 200
ACTIONS = {
    "service.create": _l("Service created"),
    "service.update": _l("Settings changed"),
    "service.appearance": _l("Appearance changed"),
    "api_key.create": _l("API key created"),
    "api_key.revoke": _l("API key revoked"),
    "api_key.rotate": _l("API key rotated"),
    "template.create": _l("Template created"),
    "template.update": _l("Template changed"),
    "template.archive": _l("Template deleted"),
    "template.move": _l("Template moved to another folder"),
    "template_folder.create": _l("Template folder made"),
    "template_folder.rename": _l("Template folder renamed"),
    "template_folder.delete": _l("Template folder deleted"),
    "sms_sender.add": _l("Text message sender added"),
    "sms_sender.update": _l("Text message sender changed"),
    "reply_to_address.add": _l("Reply-to address added"),
    "reply_to_address.update": _l("Reply-to address changed"),
    "letter_contact.add": _l("Letter contact block added"),
    "letter_contact.update": _l("Letter contact block changed"),
    "inbound_number.assign": _l("Inbound number assigned"),
    "team_member.add": _l("Team recipient added"),
    "team_member.remove": _l("Team recipient removed"),
    "guest_list.add": _l("Added to the guest list"),
    "guest_list.remove": _l("Removed from the guest list"),
    "case_events.set": _l("Link to Open Zaak set"),
    "case_events.remove": _l("Link to Open Zaak removed"),
    "case_events.subscribe": _l("Subscribed at Open Notificaties"),
    "case_events.retry": _l("Case event tried again"),
    "callback.delivery-status.set": _l("Delivery receipt callback set"),
    "callback.delivery-status.remove": _l("Delivery receipt callback removed"),
    "callback.inbound-sms.set": _l("Received text message callback set"),
    "callback.inbound-sms.remove": _l("Received text message callback removed"),
    "callback.complaint.set": _l("Complaint callback set"),
    "callback.complaint.remove": _l("Complaint callback removed"),
    "callback.returned-letter.set": _l("Returned letter callback set"),
    "callback.returned-letter.remove": _l("Returned letter callback removed"),
    "callback.unsubscribe.set": _l("Unsubscribe request callback set"),
    "callback.unsubscribe.remove": _l("Unsubscribe request callback removed"),
    "member.add": _l("Team member added"),
    "member.invite": _l("Team member invited"),
    "member.invite_resend": _l("Invitation sent again"),
    "member.invite_withdraw": _l("Invitation withdrawn"),
    "member.permissions": _l("Team member's permissions changed"),
    "member.remove": _l("Team member removed"),
    "go_live.request": _l("Asked to go live"),
    "go_live.approve": _l("Went live"),
    "go_live.reject": _l("Request to go live turned down"),
    "go_live.organisation_approve": _l("Request to go live approved by the organisation"),
    "service.organisation": _l("Organisation changed"),
    "notification.cancel": _l("Message cancelled"),
    "job.create": _l("Spreadsheet sent or scheduled"),
    "job.cancel": _l("Spreadsheet send cancelled"),
}
ACTORS = {"user": _l("console"), "admin-api": _l("admin API"), "cli": _l("command line"), "system": _l("system")}


@bp.get("/services/<service_id>/history")
@service_permission_required("manage_service")
def index(service_id: str) -> Any:
    rows = [(times.when(event.created_at), f"{event.actor_name} ({ACTORS.get(event.actor_kind, '')})",
             ACTIONS.get(event.action, event.action), wording.changes(event))
            for event in service_history(service_id, PAGE_SIZE)]
    return render_template("history/index.html", service=current_service(), rows=rows)
