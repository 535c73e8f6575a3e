"""Webhooks the providers call: delivery receipts, email events, inbound texts (blueprint.py holds
their blueprint and its shared-token authentication), and Amazon SES events by SNS (signed instead,
on a blueprint of their own)."""
from __future__ import annotations

from api.providers import (  # noqa: F401  (each module adds its routes to providers_blueprint)
    delivery_receipts,
    email_events,
    inbound_sms,
)
from api.providers.blueprint import providers_blueprint
from api.providers.ses_events import ses_blueprint

__all__ = ["providers_blueprint", "ses_blueprint"]
