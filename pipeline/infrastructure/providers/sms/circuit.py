"""A circuit breaker per SMS gateway, kept in Redis so every worker process agrees.

A gateway whose calls fail (certainly not delivered, or outcome unknown after a timeout) `threshold`
times within `window` seconds is taken out of rotation for `cooldown` seconds. Then it is tried
again: on probation, when one more failure takes it out again at once, while a success closes the
circuit for good. On probation it takes one probe at a time, and after the probe its pace ramps up
(pipeline/infrastructure/providers/sms/pacing.py): the texts held back by the outage never come all at once.

A breaker is built for each send (workers/sms_rotation.py): its reading of who is out of rotation,
taken just before the call, also tells which gateways have failures or a probation to clear, so a
success costs a Redis round trip only where there is something to reset. The readings a process's
threads take at the same moment share one MGET (pipeline.infrastructure.throughput.fast.batching): every send takes one.
"""
from __future__ import annotations

import threading
from collections.abc import Collection

import redis

from pipeline.infrastructure import throughput

WHAT = ("open", "failures", "probation")


class CircuitBreaker:
    def __init__(self, client: redis.Redis, namespace: str, *, threshold: int = 5, window: int = 60,
                 cooldown: int = 30) -> None:
        """`window` and `cooldown` in seconds."""
        self.client = client
        self.prefix = f"{namespace}:sms-circuit"
        self.threshold, self.window, self.cooldown = threshold, window, cooldown
        self._nothing_to_reset: set[str] = set()

    def _key(self, name: str, what: str) -> str:
        return _key(self.prefix, name, what)

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

    def record_success(self, name: str) -> bool:
        """Clear the gateway's failures; True when this success ended its probation (it is back)."""
        if name in self._nothing_to_reset:
            return False
        with self.client.pipeline() as pipe:
            pipe.delete(self._key(name, "failures"))
            pipe.delete(self._key(name, "probation"))
            _, ended_probation = pipe.execute()
        return bool(ended_probation)

    def probation_key(self, name: str) -> str:
        """The key that exists while the gateway is on probation (its pace allows one probe then)."""
        return self._key(name, "probation")

    def unavailable(self, names: Collection[str]) -> set[str]:
        """The gateways among `names` out of rotation now."""
        names = tuple(names)
        if not names:
            return set()
        is_open, self._nothing_to_reset = _reader(self.client, self.prefix).submit(names)
        return is_open


def _read_many(client: redis.Redis, prefix: str, requests: list[tuple[str, ...]]) -> list[tuple[set[str], set[str]]]:
    """Each request's gateways out of rotation and those with nothing to reset, from one MGET."""
    names = sorted({name for request in requests for name in request})
    values = client.mget([_key(prefix, name, what) for what in WHAT for name in names])
    count = len(names)
    is_open, failures, probation = (dict(zip(names, values[i * count:(i + 1) * count], strict=True))
                                    for i in range(len(WHAT)))
    return [({name for name in request if is_open[name] is not None},
             {name for name in request if failures[name] is None and probation[name] is None})
            for request in requests]


def _key(prefix: str, name: str, what: str) -> str:
    return f"{prefix}:{name}:{what}"


_readers: dict[tuple[int, str], throughput.Grouped] = {}
_readers_lock = threading.Lock()


def _reader(client: redis.Redis, prefix: str) -> throughput.Grouped:
    # Keyed by the client object: the group holds it, so its id is never reused for another.
    key = (id(client), prefix)
    reader = _readers.get(key)
    if reader is None:
        with _readers_lock:
            reader = _readers.setdefault(key, throughput.grouped(
                f"circuit-reads:{prefix}", lambda requests: _read_many(client, prefix, requests)))
    return reader
