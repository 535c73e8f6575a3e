"""Log context of a Dramatiq message: the request id travels with it, its ids name its lines.

Apart from observability.logs so that gunicorn's master (which loads that module for its own
lines) never imports dramatiq before gevent patches the web workers.
"""
from __future__ import annotations

import inspect
from typing import Any

import dramatiq
from dramatiq.middleware import Middleware

from observability.logs import CONTEXT_FIELDS, bind, clear, configure, current


def _id_parameters(fn: Any) -> dict[int, str]:
    """Positions of an actor's arguments named like the context fields (notification_id, ...)."""
    names = list(inspect.signature(fn).parameters)
    return {i: name for i, name in enumerate(names) if name in CONTEXT_FIELDS}


class MessageLogContext(Middleware):
    """Carries the request id from the enqueuing thread to the message, and puts the message's
    ids into the worker thread's log context while it runs."""

    def __init__(self) -> None:
        self._positions: dict[str, dict[int, str]] = {}

    def after_process_boot(self, broker: dramatiq.Broker) -> None:
        configure("worker")  # the dramatiq CLI set up plain text lines on its logging pipe (stderr)

    def before_enqueue(self, broker: dramatiq.Broker, message: dramatiq.Message, delay: int) -> None:
        request_id = current("request_id")
        if request_id and "request_id" not in message.options:
            message.options["request_id"] = request_id

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        clear()
        if message.actor_name not in self._positions:
            actor = broker.get_actor(message.actor_name)
            self._positions[message.actor_name] = _id_parameters(actor.fn)
        ids = {name: message.args[i] for i, name in self._positions[message.actor_name].items()
               if i < len(message.args)}
        bind(request_id=message.options.get("request_id"), message_id=message.message_id,
             actor=message.actor_name, **ids)

    def after_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message, *,
                              result: Any = None, exception: BaseException | None = None) -> None:
        clear()

    after_skip_message = after_process_message

