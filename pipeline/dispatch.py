"""The provider dispatch stage for sms and email: at most one provider call per notification.

A worker first claims the notification (a compare-and-set on dispatch_started_at); only the claimer
calls the provider. A retryable failure gives the claim back for Dramatiq's retry; a worker that
dies holding a claim leaves it to the sweep, which fails it rather than risk a second send.
"""
from __future__ import annotations

from dataclasses import dataclass

from config import get_settings
from models.db import utcnow
from models.notification import Notification
from models.service import sending_address
from models.template import TemplateVersion
from pipeline import statuses
from pipeline.cost import sms_fragments
from pipeline.providers import EmailMessageData, SmsMessageData
from pipeline.providers.registry import email_provider, sms_provider
from pipeline.rendering import render


@dataclass(frozen=True)
class Dispatched:
    provider: str
    reference: str
    simulated: bool


def claim(notification_id: str) -> Notification | None:
    """The notification when this worker now owns its dispatch; None when done or owned elsewhere."""
    claimed = list(
        Notification.update(dispatch_started_at=utcnow())
        .where((Notification.id == notification_id) & (Notification.status == statuses.CREATED)
               & (Notification.dispatch_started_at.is_null()))
        .returning(Notification)  # the row comes back with the claim: no second query
        .execute()
    )
    return claimed[0] if claimed else None


def release(notification_id: str) -> None:
    Notification.update(dispatch_started_at=None).where(Notification.id == notification_id).execute()


def _email_message(notification: Notification) -> EmailMessageData:
    version = TemplateVersion.get((TemplateVersion.template == notification.template_id)
                                  & (TemplateVersion.version == notification.template_version))
    html = render("email", version.body, version.subject, notification.personalisation or {}).html
    service = notification.service
    return EmailMessageData(
        notification_id=str(notification.id), to=notification.normalised_to,
        from_address=f'"{service.name}" <{sending_address(service)}>', reply_to=notification.reply_to_text,
        subject=notification.subject or "", text_body=notification.body or "", html_body=html or "",
        one_click_unsubscribe_url=notification.one_click_unsubscribe_url,
    )


def send(notification: Notification) -> Dispatched:
    """Call the provider once; raises the provider's Retryable/FinalProviderError."""
    settings = get_settings()
    simulated = notification.key_type == "test"
    if notification.notification_type == "sms":
        provider = sms_provider(settings, simulated=simulated)
        reference = provider.send_sms(SmsMessageData(
            notification_id=str(notification.id), to=notification.normalised_to,
            sender=notification.reply_to_text or settings.default_sms_sender, body=notification.body or "",
        ))
    else:
        provider = email_provider(settings, simulated=simulated)
        reference = provider.send_email(_email_message(notification))
    return Dispatched(provider=provider.name, reference=reference, simulated=provider.name == "simulated")


def record_sent(notification: Notification, dispatched: Dispatched) -> bool:
    """Move to sending (sent for international sms, where no receipt will come) with cost data."""
    if notification.notification_type == "sms":
        units = sms_fragments(notification.body or "").fragments
        new_status = statuses.SENT if notification.international else statuses.SENDING
    else:
        units, new_status = 0, statuses.SENDING
    return statuses.transition(
        notification.id, new_status, sent_at=utcnow(), sent_by=dispatched.provider,
        provider_reference=dispatched.reference, billable_units=units,
    )


