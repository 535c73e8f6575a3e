"""Emails of the platform itself (sign-in codes, invitations, password resets): recorded as
notifications of the platform service and delivered by the same actors as any other email, so they
go through the configured provider and show up with their status like every send."""
from __future__ import annotations

import uuid

from models.db import database, insert_rows, utcnow
from models.notification import Notification
from models.platform import ensure_platform_service, template_id
from models.template import Template, latest_version
from pipeline.recipients import format_email_for_comparison
from pipeline.rendering import render
from workers.sending import enqueue_deliveries


def send_platform_email(template_key: str, email_address: str, personalisation: dict[str, str]) -> Notification:
    """Record an email of the platform template `template_key` to one address and start its delivery
    once committed. Live key type: these are real emails to real people."""
    service = ensure_platform_service()
    version = latest_version(Template.get_by_id(template_id(template_key)))
    rendered = render("email", version.body, version.subject, personalisation)
    row = Notification(
        id=uuid.uuid4(), service=service, api_key_id=None, key_type="live", notification_type="email",
        template_id=version.template_id, template_version=version.version, to=email_address,
        normalised_to=format_email_for_comparison(email_address), status="created", body=rendered.body,
        subject=rendered.subject, created_at=utcnow(), personalisation=personalisation, fragment_count=0,
    )
    with database.atomic():
        insert_rows(Notification, [row])
        enqueue_deliveries([row])
    return row
