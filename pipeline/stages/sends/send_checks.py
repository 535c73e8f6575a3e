"""The senders of a send: the sms sender or reply-to address it names, else the service's default.
(Permission, template and who may receive are pipeline.domain.send_rules': a fallback chain's
worker applies them too.)"""
from __future__ import annotations

from config import get_settings
from models.cache import cached
from models.service import ReplyToAddress, Service, SmsSender, default_of
from pipeline.domain.errors import BadRequestError
from pipeline.domain.send_rules import default_reply_to


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
    return default_reply_to(service)
