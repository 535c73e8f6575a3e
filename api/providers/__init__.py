"""Webhooks the providers call: delivery receipts, email events, inbound texts (blueprint.py holds
their blueprint and its shared-token authentication); the real SMS providers' own, each with the
provider's authentication (sms_webhooks.py); and Amazon SES events by SNS (signed instead, on a
blueprint of their own)."""
from __future__ import annotations

from api.providers import (  # noqa: F401  (each module adds its routes to providers_blueprint)
    delivery_receipts,
    email_events,
    inbound_sms,
)
from api.providers.blueprint import providers_blueprint
from api.providers.ses_events import ses_blueprint
from api.providers.sms_webhooks import sms_webhooks_blueprint

__all__ = ["providers_blueprint", "ses_blueprint", "sms_webhooks_blueprint"]
