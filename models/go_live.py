"""Requests to take a service out of trial mode, and the decisions on each: its organisation's admin's
first (when the body has one), then the platform admin's."""
from __future__ import annotations

import peewee

from models.db import BaseModel, JSONField, utcnow, uuid_pk
from models.service import Service

GO_LIVE_STATUSES = ("pending", "approved", "rejected")


class GoLiveRequest(BaseModel):
    id = uuid_pk()
    service = peewee.ForeignKeyField(Service, backref="go_live_requests", on_delete="CASCADE")
    status = peewee.CharField(default="pending")  # one of GO_LIVE_STATUSES
    requested_by_kind = peewee.CharField()  # an audit Actor's kind, id and name
    requested_by_id = peewee.CharField()
    requested_by_name = peewee.CharField()
    requested_at = peewee.DateTimeField(default=utcnow)
    decided_by_name = peewee.CharField(null=True)
    decided_at = peewee.DateTimeField(null=True)
    reason = peewee.TextField(null=True)  # why it was rejected
    # The team's answers: expected messages per channel ({"email": 1000, ...}) and who receives them.
    expected_volumes = JSONField(null=True)
    recipients = peewee.TextField(null=True)
    # Set when the service's organisation had an admin at the request: they decide first.
    organisation_id = peewee.UUIDField(null=True)
    organisation_approved_by_name = peewee.CharField(null=True)
    organisation_approved_at = peewee.DateTimeField(null=True)

    @property
    def awaits_organisation(self) -> bool:
        return self.status == "pending" and self.organisation_id is not None and self.organisation_approved_at is None

    class Meta:
        table_name = "go_live_request"


def pending_request(service: Service | object) -> GoLiveRequest | None:
    return (GoLiveRequest.select()
            .where((GoLiveRequest.service == service) & (GoLiveRequest.status == "pending")).first())


def latest_request(service: Service) -> GoLiveRequest | None:
    return (GoLiveRequest.select().where(GoLiveRequest.service == service)
            .order_by(GoLiveRequest.requested_at.desc()).first())
