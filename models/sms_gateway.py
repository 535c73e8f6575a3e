"""The SMS gateways sends are spread over, and every change made to them.

Gateways named in configuration (SMS_GATEWAYS, or SMS_GATEWAY_URL alone) are added here on first
use; from then on their priority, international support and whether they are in use are changed
here (admin API), so an operator moves traffic without a restart. Their URL and credentials follow
the configuration, where secrets belong; gateways added through the admin API keep theirs here,
the secret encrypted.

`type` names the protocol the gateway speaks (pipeline/infrastructure/providers/sms/types.py): `json` (our own
JSON gateway protocol), `spryng`, `cm` or `twilio`. `token` holds the one secret each type needs
(the JSON gateway's and Spryng's bearer token, CM's product token, Twilio's auth token);
`account_sid` and `messaging_service_sid` (Twilio's account and messaging service) are not secrets.
"""
from __future__ import annotations

import peewee

from models.db import BaseModel, EncryptedTextField, JSONField, utcnow, uuid_pk


class SmsGateway(BaseModel):
    id = uuid_pk()
    name = peewee.CharField(unique=True)  # also the provider name recorded on notifications (sent_by)
    type = peewee.CharField(default="json")
    url = peewee.CharField()
    token = EncryptedTextField(null=True)
    account_sid = peewee.CharField(null=True)
    messaging_service_sid = peewee.CharField(null=True)
    # Share of the sends, relative to the other gateways in use (0: only when the others cannot take it).
    priority = peewee.IntegerField(default=10)
    supports_international = peewee.BooleanField(default=False)
    active = peewee.BooleanField(default=True)
    # Its pace (pipeline/infrastructure/providers/sms/pacing.py): messages a second and requests at once; None: its
    # type's default.
    max_per_second = peewee.IntegerField(null=True)
    max_in_flight = peewee.IntegerField(null=True)
    from_configuration = peewee.BooleanField(default=False)
    created_at = peewee.DateTimeField(default=utcnow)
    updated_at = peewee.DateTimeField(null=True)

    class Meta:
        table_name = "sms_gateway"


class SmsGatewayChange(BaseModel):
    """One change to a gateway's settings: who or what made it, and each field's value before and after."""
    id = peewee.BigAutoField()
    gateway = peewee.ForeignKeyField(SmsGateway, on_delete="CASCADE", index=False)
    changed_at = peewee.DateTimeField(default=utcnow)
    changed_by = peewee.CharField()  # "admin-api", "configuration", "slow-receipts"
    changes = JSONField()  # {"priority": [10, 20], ...}; the token is never recorded, only that it changed

    class Meta:
        table_name = "sms_gateway_change"
        indexes = ((("gateway", "changed_at"), False),)
