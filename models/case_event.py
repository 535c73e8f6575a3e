"""A service's link to the Dutch case APIs (ZGW: Open Zaak, Open Klant, Open Notificaties) and the case
events it was told of (issue 52).

The link holds where the APIs are, the credentials each takes (sealed at rest, as callback tokens are),
which case types take part and the template of each scenario and channel. An event is one message
Open Notificaties posted, recorded once (its key is what identifies the message), with what became of
it: the truth the stage and the sweep read, so a message is never lost while an API is down.
"""
from __future__ import annotations

import uuid

import peewee

from models.cache import settings_table
from models.db import BaseModel, EncryptedTextField, JSONField, utcnow, uuid_pk
from models.service import Service


@settings_table
class CaseEventLink(BaseModel):
    id = uuid_pk()  # also the last part of the address Open Notificaties posts to
    service = peewee.ForeignKeyField(Service, unique=True, on_delete="CASCADE")
    service_id: uuid.UUID
    zaken_root = peewee.CharField(max_length=1000)
    catalogi_root = peewee.CharField(max_length=1000)
    klant_root = peewee.CharField(max_length=1000)
    client_id = peewee.CharField(max_length=255)  # the ZGW JWT's iss and client_id
    client_secret = EncryptedTextField()
    klant_token = EncryptedTextField()
    nrc_root = peewee.CharField(max_length=1000, null=True)
    # Open Notificaties' own credentials; None: the Open Zaak ones (one Autorisaties API serves both).
    nrc_client_id = peewee.CharField(max_length=255, null=True)
    nrc_secret = EncryptedTextField(null=True)
    callback_auth = EncryptedTextField()  # the whole Authorization value Open Notificaties sends us
    subscription_url = peewee.CharField(max_length=1000, null=True)  # our abonnement at Open Notificaties
    subscription_state = peewee.CharField(max_length=40, null=True)  # pipeline.domain.case_events.SUBSCRIPTION_*
    subscription_checked_at = peewee.DateTimeField(null=True)
    subscription_detail = JSONField(null=True)  # what Open Notificaties answered when it refused
    case_types = JSONField(default=list)  # zaaktype identificaties taking part
    templates = JSONField(default=dict)  # {scenario: {channel: template id}}
    created_at = peewee.DateTimeField(default=utcnow)
    updated_at = peewee.DateTimeField(default=utcnow)

    class Meta:
        table_name = "case_event_link"


class CaseEvent(BaseModel):
    id = uuid_pk()
    link = peewee.ForeignKeyField(CaseEventLink, on_delete="CASCADE", index=False)  # led by the unique index
    link_id: uuid.UUID
    service = peewee.ForeignKeyField(Service, on_delete="CASCADE", index=False)  # led by the list's index
    service_id: uuid.UUID
    message_key = peewee.CharField(max_length=64)  # sha256 of what identifies the message
    message = JSONField()  # as Open Notificaties posted it (URLs and kenmerken: no personal data)
    received_at = peewee.DateTimeField(default=utcnow)
    state = peewee.CharField(max_length=40)  # pipeline.domain.case_events' outcomes
    detail = JSONField(null=True)  # what the outcome names: the API and its answer, a refusal
    attempts = peewee.IntegerField(default=0)
    next_attempt_at = peewee.DateTimeField(null=True)  # pending or waiting: when it is due
    updated_at = peewee.DateTimeField(default=utcnow)
    # What the console shows per case, filled in as the stage reads it.
    zaak_identificatie = peewee.CharField(max_length=40, null=True)
    status_omschrijving = peewee.CharField(max_length=80, null=True)
    scenario = peewee.CharField(max_length=20, null=True)
    channel = peewee.CharField(max_length=10, null=True)
    notification_id = peewee.UUIDField(null=True)  # the message sent (the first of its fallback chain)
    # The klantcontact recorded in Open Klant once the message is final.
    partij_uuid = peewee.CharField(max_length=36, null=True)
    zaak_uuid = peewee.CharField(max_length=36, null=True)
    contact_state = peewee.CharField(max_length=20, null=True)
    contact_url = peewee.CharField(max_length=1000, null=True)

    class Meta:
        table_name = "case_event"
        indexes = (
            (("link", "message_key"), True),  # a message posted again is recorded once
            (("service", "received_at"), False),  # the console's list, newest first
            (("service", "zaak_identificatie"), False),  # one case's events
            (("notification_id",), False),  # the follow-up of a message's final status
        )


# Events still to be processed: what the sweep reads (few at any time).
DUE_INDEX = "case_event_due"
CaseEvent.add_index(CaseEvent.index(CaseEvent.next_attempt_at, name=DUE_INDEX,
                                    where=CaseEvent.next_attempt_at.is_null(False)))
