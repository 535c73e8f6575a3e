"""Actors declared without a broker, so that importing a module of actors builds and connects nothing.

`@actor(queue_name=..., **options)` takes what `dramatiq.actor` takes and keeps it. When its process's
factory wires the workers (workers.wire), the actor is made by `dramatiq.actor` itself on that broker,
which checks the queue name and the options as it always does; from then on every attribute and method
is that Dramatiq actor's. Until then sending a message says so instead of reaching a default broker of
Dramatiq's making (`dramatiq.actor` asks `dramatiq.get_broker()`, which builds one when none is given).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar

import dramatiq

from workers.broker import NOT_WIRED

P = ParamSpec("P")
R = TypeVar("R")


class Actor(Generic[P, R]):
    """An actor as declared; once bound, the Dramatiq actor made from the declaration."""

    def __init__(self, fn: Callable[P, R], *, actor_name: str, queue_name: str, **declaration: Any) -> None:
        self.fn, self.actor_name, self.queue_name = fn, actor_name, queue_name  # known before it is bound
        self.declaration = {"actor_name": actor_name, "queue_name": queue_name, **declaration}
        self.bound: dramatiq.Actor[P, R] | None = None

    def bind(self, broker: dramatiq.Broker) -> None:
        """Make the Dramatiq actor on broker; a process that wires a new broker (tests do) binds it again."""
        if self.bound is None or self.bound.broker is not broker:
            self.bound = dramatiq.actor(self.fn, broker=broker, **self.declaration)

    def __getattr__(self, name: str) -> Any:
        # Reached only for what the declaration itself does not hold: the Dramatiq actor's attributes.
        bound = self.__dict__.get("bound")
        if bound is None:
            raise RuntimeError(NOT_WIRED)
        return getattr(bound, name)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.bound(*args, **kwargs) if self.bound is not None else self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return repr(self.bound) if self.bound is not None else f"Actor({self.fn!r}, unbound)"


def actor(*, queue_name: str, priority: int = 0, actor_name: str | None = None,
          **options: Any) -> Callable[[Callable[P, R]], Actor[P, R]]:
    """Declare an actor, made and bound to the process's broker once it is wired."""
    def declare(fn: Callable[P, R]) -> Actor[P, R]:
        return Actor(fn, actor_name=actor_name or fn.__name__, queue_name=queue_name, priority=priority, **options)
    return declare
