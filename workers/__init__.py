"""Dramatiq broker set-up and actors. Importing them builds and registers nothing: each process's
factory (the web app's, the console's, the scheduler's, the supervisor's, and the worker processes'
through `dramatiq workers:wire`) calls wire()."""
from __future__ import annotations

import threading
from types import ModuleType

import dramatiq

from config import get_settings
from models.db import database, init_database
from pipeline.infrastructure import throughput
from pipeline.stages import notification_events, status_changes
from pipeline.stages.fallback import on_refused
from workers import (
    callbacks,
    case_events,
    fallback,
    jobs,
    key_expiry,
    letters,
    periodic,
    receipts,
    reports,
    retention,
    sending,
    sms_rotation,
    unknown_outcomes,
)
from workers.actors import Actor
from workers.broker import build_broker, current_broker, use_broker

# Every module declaring actors (bulk jobs on their own queue, the console's messages reports).
ACTOR_MODULES: tuple[ModuleType, ...] = (callbacks, case_events, fallback, jobs, key_expiry, letters, periodic,
                                         receipts, reports, retention, sending, sms_rotation, unknown_outcomes)
_wiring = threading.Lock()
_wired = False


def wire() -> dramatiq.Broker:
    """Build this process's database handle, throughput implementation (the THROUGHPUT setting's)
    and broker, bind every actor to the broker, and register the status-change and event listeners
    (the services' callbacks); once per process."""
    global _wired
    with _wiring:
        if not _wired:
            if database.obj is None:
                init_database(get_settings().database_url)
            throughput.install(throughput.build(get_settings().throughput))
            use_broker(build_broker())
            bind_actors(current_broker())
            # Each writes its follow-up in the change's transaction (status_changes.on_change).
            status_changes.on_change(callbacks.status_changed, writes=callbacks.may_call_back)
            status_changes.on_change(fallback.status_changed, writes=fallback.may_fall_back)  # a chain's next step
            # A case event's klantcontact, once its chain is over: marked due in the change's transaction.
            status_changes.on_change(case_events.status_changed, writes=case_events.may_record_contact)
            on_refused(case_events.fallback_refused)  # ... or once its next step was refused
            notification_events.on_record(callbacks.event_recorded)
            _wired = True
    return current_broker()


def bind_actors(broker: dramatiq.Broker) -> None:
    for module in ACTOR_MODULES:
        for value in vars(module).values():
            if isinstance(value, Actor):
                value.bind(broker)
