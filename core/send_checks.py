"""The service-level checks of a send: permission, template, who may receive, senders."""
from __future__ import annotations

from config import get_settings
from core.sender import Sender
from models.cache import cached
from models.service import ReplyToAddress, Service, SmsSender, default_of
from models.template import TemplateVersion, find_version
from pipeline.domain.errors import BadRequestError, Refusal
from pipeline.domain.recipients.email_address import format_email_for_comparison
from pipeline.domain.recipients.phone import format_phone_for_comparison
from pipeline.domain.refusals import not_allowed_message
from pipeline.domain.trial import team_and_guest_list, trial_mode_message


def check_permission(service: Service, channel: str) -> None:
    if not service.has_permission(channel):
        raise BadRequestError(not_allowed_message(channel))


def find_template(service: Service, template_id: str, channel: str) -> TemplateVersion:
    version = cached(("template", service.id, template_id), lambda: find_version(service, template_id))
    if version is None:
        raise BadRequestError("Template not found")
    if version.template.template_type != channel:
        raise BadRequestError(
            f"{version.template.template_type} template is not suitable for {channel} notification"
        )
    return version


TEAM_KEY_REFUSAL = Refusal("team_key_recipient", "Cannot send to this recipient using a team-only API key.")


def check_recipient_allowed(sender: Sender, channel: str, recipient: str) -> None:
    """Trial services and team keys reach only the team and the guest list; test keys reach anyone."""
    if sender.key_type == "test" or not (sender.key_type == "team" or sender.service.trial_mode):
        return
    compare = format_email_for_comparison if channel == "email" else format_phone_for_comparison
    if compare(recipient) in team_and_guest_list(sender.service, channel):
        return
    if sender.key_type == "team":
        raise BadRequestError(TEAM_KEY_REFUSAL)
    raise BadRequestError(trial_mode_message())


def sms_sender(service: Service, sms_sender_id: str | None) -> str:
    if sms_sender_id:
        sender = SmsSender.get_or_none((SmsSender.id == sms_sender_id) & (SmsSender.service == service))
        if sender is None:
            raise BadRequestError(f"sms_sender_id {sms_sender_id} does not exist in database for service id")
        return sender.sms_sender
    default = cached(("sms-sender", service.id), lambda: default_of(SmsSender, service))
    return default.sms_sender if default else get_settings().default_sms_sender


def reply_to(service: Service, email_reply_to_id: str | None) -> str | None:
    if email_reply_to_id:
        found = ReplyToAddress.get_or_none(
            (ReplyToAddress.id == email_reply_to_id) & (ReplyToAddress.service == service)
        )
        if found is None:
            raise BadRequestError(
                f"email_reply_to_id {email_reply_to_id} does not exist in database for service id {service.id}"
            )
        return found.email_address
    default = cached(("reply-to", service.id), lambda: default_of(ReplyToAddress, service))
    return default.email_address if default else None
