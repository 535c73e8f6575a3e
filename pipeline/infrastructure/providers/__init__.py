"""Provider clients at the boundary: synchronous, no queue, no database.

Workers call `email_provider(settings).send_email(...)` / `sms_provider(settings).send_sms(...)`
and sort the outcome by exception class (see errors.py).
"""
from pipeline.infrastructure.providers.email.message import build_email
from pipeline.infrastructure.providers.email.smtp import SmtpProvider
from pipeline.infrastructure.providers.errors import (
    EmailMessageData,
    EmailProvider,
    FinalProviderError,
    OutcomeUnknownError,
    ProviderError,
    RetryableProviderError,
    SmsMessageData,
    SmsProvider,
)
from pipeline.infrastructure.providers.registry import email_provider, sms_provider
from pipeline.infrastructure.providers.simulated import (
    SimulatedEmailProvider,
    SimulatedSmsProvider,
    post_receipts,
    simulated_outcome,
    simulated_receipt,
)
from pipeline.infrastructure.providers.sms.http_gateway import HttpSmsGateway
from pipeline.infrastructure.providers.sms.receipts import RECEIPT_SCHEMA, map_gateway_state

__all__ = [
    "EmailMessageData",
    "EmailProvider",
    "FinalProviderError",
    "HttpSmsGateway",
    "OutcomeUnknownError",
    "ProviderError",
    "RECEIPT_SCHEMA",
    "RetryableProviderError",
    "SimulatedEmailProvider",
    "SimulatedSmsProvider",
    "SmsMessageData",
    "SmsProvider",
    "SmtpProvider",
    "build_email",
    "email_provider",
    "map_gateway_state",
    "post_receipts",
    "simulated_outcome",
    "simulated_receipt",
    "sms_provider",
]
