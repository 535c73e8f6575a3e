"""Provider clients at the boundary: synchronous, no queue, no database.

Workers call `email_provider(settings).send_email(...)` / `sms_provider(settings).send_sms(...)`
and sort the outcome by exception class (see errors.py).
"""
from pipeline.providers.email.message import build_email
from pipeline.providers.email.smtp import SmtpProvider
from pipeline.providers.errors import (
    EmailMessageData,
    EmailProvider,
    FinalProviderError,
    OutcomeUnknownError,
    ProviderError,
    RetryableProviderError,
    SmsMessageData,
    SmsProvider,
)
from pipeline.providers.registry import email_provider, sms_provider
from pipeline.providers.simulated import (
    SimulatedEmailProvider,
    SimulatedSmsProvider,
    post_receipts,
    simulated_outcome,
    simulated_receipt,
)
from pipeline.providers.sms.http_gateway import HttpSmsGateway
from pipeline.providers.sms.receipts import RECEIPT_SCHEMA, map_gateway_state

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
