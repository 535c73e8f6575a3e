"""The one way a notification row is made, for every sender: the API's and the console's sends, a
job's rows and the platform's own emails. What every new row has in common (its id, its first
status, when it was made, what an sms will cost) is filled in here, so no sender spells it itself;
and its place in a fallback chain, kept beside it (new_chain)."""
from __future__ import annotations

import datetime
import uuid

from models.db import utcnow
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.service import Service
from models.template import TemplateVersion
from pipeline.domain import statuses
from pipeline.domain.cost import sms_fragments
from pipeline.domain.letters.content import address_json
from pipeline.domain.recipients import PostalAddress, Recipient


def new_notification(
    service: Service | uuid.UUID, channel: str, to: Recipient | PostalAddress | str, *, body: str,
    subject: str | None, version: TemplateVersion | None = None, key_type: str = "live",
    api_key_id: uuid.UUID | None = None, created_by_user_id: uuid.UUID | None = None,
    reference: str | None = None, reply_to_text: str | None = None, personalisation: dict | None = None,
    scheduled_for: datetime.datetime | None = None, postage: str | None = None,
    one_click_unsubscribe_url: str | None = None, job_id: uuid.UUID | None = None,
    job_row_number: int | None = None, precompiled: bool = False, status: str = statuses.CREATED,
    notification_id: uuid.UUID | None = None, created_at: datetime.datetime | None = None,
) -> Notification:
    """A new, unsaved notification of channel to `to`: a checked sms or email recipient, a checked
    postal address, or (a precompiled letter's) the text shown as its recipient. `version` is the
    template version it was made from; created_at is now unless a batch gives one time to all its rows."""
    row = Notification(
        id=notification_id or uuid.uuid4(), service=service, api_key_id=api_key_id, key_type=key_type,
        created_by_user_id=created_by_user_id, notification_type=channel,
        template_id=version.template_id if version is not None else None,
        template_version=version.version if version is not None else None,
        reference=reference, status=status, body=body, subject=subject, reply_to_text=reply_to_text,
        created_at=created_at or utcnow(), scheduled_for=scheduled_for, personalisation=personalisation,
        one_click_unsubscribe_url=one_click_unsubscribe_url, job_id=job_id, job_row_number=job_row_number,
        postage=postage, precompiled=precompiled,
        # What it will cost is known now: a simulated send records it in the statement that moves it on.
        fragment_count=sms_fragments(body).fragments if channel == "sms" else 0 if channel == "email" else None,
    )
    if isinstance(to, Recipient):
        row.to, row.normalised_to, row.international = to.raw, to.normalised, to.international
        row.phone_prefix, row.rate_multiplier = to.prefix, to.rate_multiplier
    elif isinstance(to, PostalAddress):
        row.to = "\n".join(to.lines)
        row.normalised_to = "".join(row.to.split()).lower()
        row.international, row.address = to.international, address_json(to)
    else:
        row.to = to
    return row


def new_chain(notification: Notification, alternatives: list[dict] | None,
              fallback_for: uuid.UUID | None = None) -> NotificationFallback | None:
    """A new notification's place in a fallback chain (issue 44), to be saved with it: the alternatives
    to send if it fails, and the failed message it stands in for; None when it has neither. A test
    key's alternatives are not kept: its messages are always delivered, so it never falls back."""
    kept = alternatives if notification.key_type != "test" else None
    if not kept and fallback_for is None:
        return None
    return NotificationFallback(notification=notification.id, fallback_for=fallback_for, alternatives=kept or None)
