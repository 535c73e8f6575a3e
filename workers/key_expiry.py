"""The periodic warning to a service's managers that one of its API keys expires within 14 days."""
from __future__ import annotations

from models.db import database, utcnow
from pipeline.stages import key_expiry
from workers.actors import actor
from workers.platform_email import send_platform_email


@actor(queue_name="periodic", max_retries=0)
def warn_expiring_keys() -> None:
    """Email the managers of each key due a warning; a key is claimed and its emails recorded in one
    transaction, so it is warned once (the next run finds it claimed)."""
    now = utcnow()
    for key_id in key_expiry.keys_due(now):
        with database.atomic():
            warning = key_expiry.claim(key_id, now)
            for address in warning.to if warning else []:
                send_platform_email(key_expiry.TEMPLATE, address, warning.personalisation)
