"""The periodic settling of sends whose outcome is unknown, through their gateway's lookup
(pipeline/stages/unknown_outcomes.py); texts a gateway certainly does not have are sent again."""
from __future__ import annotations

import logging

from config import get_settings
from models.db import utcnow
from pipeline.infrastructure.providers.sms import gateways
from pipeline.infrastructure.providers.sms.lookups import lookup_for
from pipeline.stages import unknown_outcomes
from workers.actors import actor
from workers.sending import enqueue_deliveries

log = logging.getLogger(__name__)
SETTLE_INTERVAL_SECONDS = 60


@actor(queue_name="periodic", max_retries=0)
def settle_unknown_outcomes() -> None:
    settings = get_settings()
    lookups = {}
    for row in gateways.in_use(settings):
        lookup = lookup_for(row.type, row.url, row.token, timeout=settings.sms_gateway_timeout_seconds)
        if lookup is not None:
            lookups[row.name] = lookup
    settled = unknown_outcomes.settle(utcnow(), lookups)
    enqueue_deliveries(settled.not_there)
    if settled.found or settled.not_there:
        log.warning("texts of unknown outcome settled by their gateways' lookups: %d found there (recorded as "
                    "sent), %d not there (sent again)", len(settled.found), len(settled.not_there))
