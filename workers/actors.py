"""Actors declared without a broker, so that importing a module of actors builds and connects nothing.

`@actor(queue_name=..., **options)` takes what `dramatiq.actor` takes; the actor is bound to a broker
when its process's factory wires the workers (workers.wire), through Dramatiq's documented `Actor`
constructor. Until then sending a message says so instead of reaching a default broker of
Dramatiq's making (`dramatiq.actor` asks `dramatiq.get_broker()`, which builds one when none is set).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, ParamSpec, TypeVar

import dramatiq

from workers.broker import NOT_WIRED

P = ParamSpec("P")
R = TypeVar("R")


class _NoBroker:
    """Where an actor's broker is until the process is wired."""

    def __getattr__(self, name: str) -> NoReturn:
        raise RuntimeError(NOT_WIRED)


class Actor(dramatiq.Actor[P, R]):
    def __init__(self, fn: Callable[P, R], *, actor_name: str, queue_name: str, priority: int,
                 options: dict[str, Any]) -> None:
        # What dramatiq.Actor keeps, without declaring it on a broker (bind does).
        self.fn, self.actor_name, self.queue_name, self.priority, self.options = (
            fn, actor_name, queue_name, priority, options)
        self.logger = dramatiq.get_logger(fn.__module__ or "_", actor_name)
        self.broker: Any = _NoBroker()

    def bind(self, broker: dramatiq.Broker) -> None:
        """Declare this actor on broker; a process that wires a new broker (tests do) binds it again."""
        if self.broker is broker:
            return
        # As dramatiq.actor checks when it declares: an option no middleware of the broker reads is a typo.
        if unknown := set(self.options) - broker.actor_options:
            raise ValueError(f"actor {self.actor_name}: options no middleware reads: {', '.join(sorted(unknown))}")
        dramatiq.Actor.__init__(self, self.fn, broker=broker, actor_name=self.actor_name,
                                queue_name=self.queue_name, priority=self.priority, options=self.options)


def actor(*, queue_name: str, priority: int = 0, actor_name: str | None = None,
          **options: Any) -> Callable[[Callable[P, R]], Actor[P, R]]:
    """Declare an actor, bound to the process's broker once it is wired."""
    def declare(fn: Callable[P, R]) -> Actor[P, R]:
        return Actor(fn, actor_name=actor_name or fn.__name__, queue_name=queue_name, priority=priority,
                     options=options)
    return declare
