"""Emails and texts of the platform itself (sign-in codes, invitations, password resets): recorded as
notifications of the platform service and delivered by the same actors as any other message, so they
go through the configured provider and show up with their status like every send."""
from __future__ import annotations

from config import get_settings
from models.notification import Notification
from models.platform import current_language, ensure_platform_service, template_id
from models.template import Template, latest_version
from pipeline.domain.new_notification import new_notification
from pipeline.domain.recipients import Recipient, format_email_for_comparison, recipient_of
from pipeline.domain.rendering import render
from pipeline.infrastructure import throughput
from workers.sending import enqueue_deliveries


def send_platform_email(template_key: str, email_address: str, personalisation: dict[str, str]) -> Notification:
    """Record an email of the platform template `template_key` to one address, in the language of this
    context (models.platform.set_language), and start its delivery once committed. Live key type: these
    are real emails to real people."""
    service = ensure_platform_service()
    version = latest_version(Template.get_by_id(template_id(template_key, current_language())))
    rendered = render("email", version.body, version.subject, personalisation)
    # Our own addresses, not a caller's: taken as they are, in the form they are compared in.
    recipient = Recipient(email_address, format_email_for_comparison(email_address))
    row = new_notification(service, "email", recipient, body=rendered.body, subject=rendered.subject,
                           version=version, personalisation=personalisation)
    throughput.seam().record([row], enqueue_deliveries)
    return row


def send_platform_sms(template_key: str, phone_number: str, personalisation: dict[str, str]) -> Notification:
    """Record a text of the platform template `template_key` to one number (checked as the API checks
    one; raises InvalidRecipient), in the language of this context, and start its delivery once committed."""
    service = ensure_platform_service()
    version = latest_version(Template.get_by_id(template_id(template_key, current_language())))
    rendered = render("sms", version.body, None, personalisation)
    row = new_notification(service, "sms", recipient_of("sms", phone_number), body=rendered.body, subject=None,
                           version=version, personalisation=personalisation,
                           reply_to_text=get_settings().default_sms_sender)
    throughput.seam().record([row], enqueue_deliveries)
    return row
