"""The platform's own emails and texts (sign-in codes, invitations, password resets): which template in
which language, to whom, in what words. Each is a notification of the platform service, so it goes
through the configured provider and shows up with its status like every send; workers/platform_email.py
records it and starts its delivery (docs/architecture.md#enqueue-after-commit)."""
from __future__ import annotations

from config import get_settings
from models.notification import Notification
from models.platform import current_language, ensure_platform_service, template_id
from models.template import Template, TemplateVersion, latest_version
from pipeline.domain.recipients import Recipient, format_email_for_comparison, recipient_of
from pipeline.domain.rendering import render
from pipeline.stages.new_notification import new_notification


def _current_version(template_key: str) -> TemplateVersion:
    """The platform template `template_key` in the language of this context (models.platform.set_language)."""
    return latest_version(Template.get_by_id(template_id(template_key, current_language())))


def platform_email(template_key: str, email_address: str, personalisation: dict[str, str]) -> Notification:
    """A new, unsaved email of the platform template `template_key` to one address. Live key type: these
    are real emails to real people."""
    service = ensure_platform_service()  # it makes the platform's templates too: first
    version = _current_version(template_key)
    rendered = render("email", version.body, version.subject, personalisation)
    # Our own addresses, not a caller's: taken as they are, in the form they are compared in.
    recipient = Recipient(email_address, format_email_for_comparison(email_address))
    return new_notification(service, "email", recipient, body=rendered.body,
                            subject=rendered.subject, version=version, personalisation=personalisation)


def platform_sms(template_key: str, phone_number: str, personalisation: dict[str, str]) -> Notification:
    """A new, unsaved text of the platform template `template_key` to one number, checked as the API checks
    one (raises InvalidRecipient), from the platform's default sender."""
    service = ensure_platform_service()
    version = _current_version(template_key)
    rendered = render("sms", version.body, None, personalisation)
    return new_notification(service, "sms", recipient_of("sms", phone_number), body=rendered.body,
                            subject=None, version=version, personalisation=personalisation,
                            reply_to_text=get_settings().default_sms_sender)
