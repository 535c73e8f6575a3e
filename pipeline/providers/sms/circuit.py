"""A circuit breaker per SMS gateway, kept in Redis so every worker process agrees.

A gateway whose calls fail (certainly not delivered, or outcome unknown after a timeout) `threshold`
times within `window` seconds is taken out of rotation for `cooldown` seconds. Then it is tried
again: on probation, when one more failure takes it out again at once, while a success closes the
circuit for good.

A breaker is built for each send (workers/sms_rotation.py): its reading of who is out of rotation,
taken just before the call, also tells which gateways have failures or a probation to clear, so a
success costs a Redis round trip only where there is something to reset.
"""
from __future__ import annotations

from collections.abc import Collection

import redis


class CircuitBreaker:
    def __init__(self, client: redis.Redis, namespace: str, *, threshold: int = 5, window: int = 60,
                 cooldown: int = 30) -> None:
        """`window` and `cooldown` in seconds."""
        self.client = client
        self.prefix = f"{namespace}:sms-circuit"
        self.threshold, self.window, self.cooldown = threshold, window, cooldown
        self._nothing_to_reset: set[str] = set()

    def _key(self, name: str, what: str) -> str:
        return f"{self.prefix}:{name}:{what}"

    def record_failure(self, name: str) -> bool:
        """Count a failed call; True when this one took the gateway out of rotation."""
        with self.client.pipeline() as pipe:
            pipe.incr(self._key(name, "failures"))
            pipe.exists(self._key(name, "probation"))
            pipe.exists(self._key(name, "open"))
            failures, on_probation, is_open = pipe.execute()
        if failures == 1:  # the first failure of a window starts it (EXPIRE NX needs Redis 7)
            self.client.expire(self._key(name, "failures"), self.window)
        if is_open or (failures < self.threshold and not on_probation):
            return False
        with self.client.pipeline() as pipe:
            pipe.set(self._key(name, "open"), "1", ex=self.cooldown)
            pipe.set(self._key(name, "probation"), "1", ex=self.cooldown + self.window)
            pipe.delete(self._key(name, "failures"))
            pipe.execute()
        return True

    def record_success(self, name: str) -> None:
        if name in self._nothing_to_reset:
            return
        self.client.delete(self._key(name, "failures"), self._key(name, "probation"))

    def unavailable(self, names: Collection[str]) -> set[str]:
        """The gateways among `names` out of rotation now."""
        names = list(names)
        if not names:
            return set()
        values = self.client.mget([self._key(name, what) for what in ("open", "failures", "probation")
                                   for name in names])
        count = len(names)
        is_open, failures, probation = (dict(zip(names, values[i * count:(i + 1) * count], strict=True))
                                        for i in range(3))
        self._nothing_to_reset = {name for name in names if failures[name] is None and probation[name] is None}
        return {name for name in names if is_open[name] is not None}
