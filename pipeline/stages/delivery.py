"""The text and email delivery stage, read top to bottom: claim a notification, choose its route,
call its provider once, record the answer. Each step is a call to the module that holds it:

- claim: pipeline/stages/dispatch.py (a compare-and-set, so one worker sends it);
- route: pipeline/stages/routing.py (the simulator, the SMTP relays, or the SMS gateways in turn);
- send: pipeline/stages/failover.py (each provider of the route until one takes it);
- record: pipeline/stages/outcomes.py (sent, to wait and try again, final, or unknown).

The simulator is a provider like the others; a send that reaches no one needs no claim, so the
sends it takes go through these steps together, in its own round
(pipeline/infrastructure/providers/simulated.py). The actors of the send queues (workers/sending.py)
are thin: they call deliver() or deliver_together() and turn TryAgain into their broker's retry.
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Sequence

from pipeline.domain import statuses
from pipeline.infrastructure.providers.simulated import Round, Steps
from pipeline.stages import dispatch, failover, handover, outcomes, routing, status_changes

log = logging.getLogger(__name__)

# The simulator's round, taking this stage's own steps for the sends it takes together.
_simulated_together = Round(Steps(route=routing.providers_for,
                                  send=functools.partial(handover.send, keep_connection=True),
                                  record=dispatch.record_together, unreadable=dispatch.unreadable,
                                  gone=dispatch.report_gone))


def deliver(notification_id: str, channel: str | None, gateways: routing.Gateways) -> None:
    """Send one notification. channel: "sms" or "email" on the live sends' queues; None for a test
    key's. Raises outcomes.TryAgain when it must wait and try again."""
    if not deliver_together([notification_id], channel, gateways):
        return  # taken with the simulator's other sends of this moment (or no longer awaiting dispatch)
    notification = dispatch.take(notification_id)
    if notification is None:
        return
    route = routing.route(notification, gateways)
    answer = failover.send(notification, route)
    outcomes.record(notification, answer, route)


def deliver_together(notification_ids: Sequence[str], channel: str | None, gateways: routing.Gateways) -> list[str]:
    """A message's sends that their provider takes together (the simulator, for a test key's send and
    a channel with no real provider), with the sends the worker's other threads hand it at the same
    moment. Returns the ids to send one by one, with deliver()."""
    if channel is None or routing.only_simulated(channel):
        return _simulated_together.hand_in(notification_ids, gateways)
    return list(notification_ids)


def give_up(notification_id: str) -> None:
    """Its retries are over: a technical failure."""
    log.warning("provider retries exhausted for %s", notification_id)
    status_changes.transition(notification_id, statuses.TECHNICAL_FAILURE)
