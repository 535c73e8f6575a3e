"""Sending the platform's own emails and texts: the row its rules make (pipeline/stages/platform_email.py),
recorded, and its delivery started once committed (docs/architecture.md#enqueue-after-commit)."""
from __future__ import annotations

from models.notification import Notification
from pipeline.infrastructure import throughput
from pipeline.stages.platform_email import platform_email, platform_sms
from workers.sending import enqueue_deliveries


def send_platform_email(template_key: str, email_address: str, personalisation: dict[str, str]) -> Notification:
    """Record the platform email `template_key` to one address and start its delivery once committed."""
    row = platform_email(template_key, email_address, personalisation)
    throughput.seam().record([row], enqueue_deliveries)
    return row


def send_platform_sms(template_key: str, phone_number: str, personalisation: dict[str, str]) -> Notification:
    """Record the platform text `template_key` to one number (raises InvalidRecipient) and start its delivery."""
    row = platform_sms(template_key, phone_number, personalisation)
    throughput.seam().record([row], enqueue_deliveries)
    return row
