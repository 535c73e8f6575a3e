"""The send step of delivery: a notification made the message its channel's provider takes, and
that provider called once, timed and counted by its outcome (provider_calls)."""
from __future__ import annotations

import time
from typing import cast

from config import get_settings
from models.appearance import cached_appearance_of
from models.db import give_back_connection
from models.notification import Notification
from models.platform import language_of as platform_language_of
from models.service import sending_address
from models.template import TemplateVersion
from observability.metrics import provider_calls
from pipeline.domain.rendering import render
from pipeline.infrastructure.providers import (
    EmailMessageData,
    EmailProvider,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsMessageData,
    SmsProvider,
)
from pipeline.infrastructure.providers.errors import RateLimited
from pipeline.stages.dispatch import Dispatched
from pipeline.stages.email_brand import brand_view
from pipeline.stages.unsubscribe import hosted_url


def send(notification: Notification, provider: SmsProvider | EmailProvider, *,
         keep_connection: bool = False) -> Dispatched:
    """Call the provider once; raises the provider's Retryable/FinalProviderError or
    OutcomeUnknownError. The database connection is given back for the call, no query being made
    until the provider answers, unless keep_connection (a round that records at once)."""
    channel, started, outcome = notification.notification_type, time.perf_counter(), "sent"
    try:
        message = _sms_message(notification) if channel == "sms" else _email_message(notification)
        if not keep_connection:
            give_back_connection()
        # The provider was chosen for the message's channel (pipeline/stages/routing.py).
        if isinstance(message, SmsMessageData):
            reference = cast(SmsProvider, provider).send_sms(message)
        else:
            reference = cast(EmailProvider, provider).send_email(message)
    except RateLimited:  # the gateway's "too many requests": counted apart from its failures
        outcome = "rate-limited"
        raise
    except RetryableProviderError:
        outcome = "retryable-error"
        raise
    except FinalProviderError:
        outcome = "final-error"
        raise
    except OutcomeUnknownError:
        outcome = "outcome-unknown"
        raise
    finally:
        provider_calls.labels(provider.name, channel, outcome).observe(time.perf_counter() - started)
    return Dispatched(provider=provider.name, reference=reference)


def _email_message(notification: Notification) -> EmailMessageData:
    version = TemplateVersion.get((TemplateVersion.template == notification.template_id)
                                  & (TemplateVersion.version == notification.template_version))
    service = notification.service
    appearance = cached_appearance_of(service.id)
    # The console's own emails are written in one language each, whatever the platform service's setting.
    language = platform_language_of(notification.template_id) or appearance.language
    html = render("email", version.body, version.subject, notification.personalisation or {},
                  language=language, service_name=service.name,
                  brand=brand_view(appearance.email_brand)).html
    assert notification.normalised_to is not None  # set at accept for every email
    return EmailMessageData(
        notification_id=str(notification.id), to=notification.normalised_to,
        from_address=f'"{service.name}" <{sending_address(service)}>', reply_to=notification.reply_to_text,
        subject=notification.subject or "", text_body=notification.body or "", html_body=html or "",
        one_click_unsubscribe_url=notification.one_click_unsubscribe_url or hosted_url(service, str(notification.id)),
    )


def _sms_message(notification: Notification) -> SmsMessageData:
    assert notification.normalised_to is not None  # set at accept for every text
    return SmsMessageData(
        notification_id=str(notification.id), to=notification.normalised_to,
        sender=notification.reply_to_text or get_settings().default_sms_sender, body=notification.body or "",
    )

