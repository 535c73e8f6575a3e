"""The names a person reads for values the service stores: a channel, a key type, a permission, a status, a
provider. Pages and the history show these, never the stored value itself (`value_name` in templates)."""
from __future__ import annotations

from flask_babel import lazy_gettext as _l

from console.messages.labels import CHANNELS, STATUS, STATUS_FILTERS

KEY_TYPES = {"live": _l("Live"), "team": _l("Team and guest list"), "test": _l("Test")}
MEMBER_PERMISSIONS = {
    "view_activity": _l("See dashboard"),
    "send_messages": _l("Send messages"),
    "manage_templates": _l("Add and edit templates"),
    "manage_service": _l("Manage settings and team"),
    "manage_api_keys": _l("Manage API keys"),
}
SERVICE_PERMISSIONS = {
    "email": _l("Send emails"),
    "sms": _l("Send text messages"),
    "letter": _l("Send letters"),
    "international_sms": _l("Send text messages to international numbers"),
    "inbound_sms": _l("Receive text messages"),
    "upload_document": _l("Send files by email"),
}
GO_LIVE_STATUSES = {"pending": _l("Waiting for a decision"), "approved": _l("Approved"),
                    "rejected": _l("Turned down")}
JOB_STATUSES = {"pending": _l("Waiting to start"), "scheduled": _l("Scheduled"), "in progress": _l("Sending"),
                "finished": _l("All messages created"), "cancelled": _l("Cancelled"),
                "sending limits exceeded": _l("Not sent: over today's limit")}
# Who carried a message (notification.sent_by): what each provider is, or its company's name as written.
PROVIDERS = {
    "simulated": _l("Simulator (nothing really sent)"),
    "smtp": _l("Email server (SMTP)"),
    "ses": "Amazon SES",
    "http-gateway": _l("SMS gateway"),
    "spryng": "Spryng",
    "cm": "CM.com",
    "twilio": "Twilio",
    "directory": _l("Print house (drop folder)"),
    "sftp": _l("Print house (SFTP)"),
}
KINDS = {"channel": CHANNELS, "key_type": KEY_TYPES, "permission": {**MEMBER_PERMISSIONS, **SERVICE_PERMISSIONS},
         "go_live": GO_LIVE_STATUSES, "provider": PROVIDERS, "status": STATUS,
         "api_status": STATUS_FILTERS}


def value_name(kind: str, value: object) -> str:
    """What a person reads for a stored value of a kind; a value with no name (an SMS gateway the operator
    named, say) as it is."""
    name = KINDS[kind].get(str(value)) if value is not None else None
    return str(name) if name is not None else str(value if value is not None else "")
