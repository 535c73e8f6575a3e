"""Each SMS gateway's pace, kept in Redis so every worker process keeps to it together: at most
`per_second` messages a second and `in_flight` requests at once (the gateway's settings, or its
type's defaults below).

A send takes a permit before it calls the gateway: a slot on the gateway's clock (one every
1/per_second seconds, GCRA: the slot is reserved and the thread sleeps until it) and a lease among
its requests in flight (a sorted set of leases, each with an end, so a worker that dies holding one
frees it when it ends). No permit within MAX_WAIT_SECONDS: Paced, "not sent, try later".

Recovery is paced too. A gateway on probation after an outage (its circuit breaker's cool-down is
over, pipeline/infrastructure/providers/sms/circuit.py) takes one probe at a time; the probe's success starts a
ramp: the pace begins at RAMP_START of the settings and doubles every RAMP_STEP_SECONDS. A 429
holds every sender off for its Retry-After (HOLD_DEFAULT_SECONDS when it gives none) and starts the
ramp again after it, so a gateway whose real limit is below its settings draws a 429 now and then,
never a storm of them. The held sends of an outage, and a 100,000-row job, come at this pace.

The clock is Redis's own (TIME in the script), so processes on several hosts share one.
"""
from __future__ import annotations

import contextlib
import logging
import math
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import redis

from models.outages import REDIS_UNAVAILABLE
from pipeline.infrastructure.providers.errors import Paced
from pipeline.infrastructure.providers.sms import types

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    per_second: int  # messages a second
    in_flight: int  # requests at once


# No limit is published by Spryng or CM.com (their API documentation names none), nor for our own
# JSON protocol: a pace any gateway of theirs takes with room to spare, for the operator to raise.
# Twilio documents a concurrency limit on its REST API per account (error 20429, a 429 "safe to
# retry", https://www.twilio.com/docs/api/errors/20429) and queues texts per sender itself: half
# the account's usual 100 concurrent requests leaves room for its other users.
DEFAULTS = {types.JSON: Limits(50, 20), types.SPRYNG: Limits(50, 20), types.CM: Limits(50, 20),
            types.TWILIO: Limits(100, 50)}
MAX_PER_SECOND, MAX_IN_FLIGHT = 10_000, 1_000

MAX_WAIT_SECONDS = 2.0  # longest a send waits for its permit, holding its claim
POLL_SECONDS = 0.05  # how often a send waiting for a request in flight to end asks again
RAMP_START = 1 / 8
RAMP_STEP_SECONDS = 5.0
RAMP_SECONDS = RAMP_STEP_SECONDS * math.log2(1 / RAMP_START)
HOLD_DEFAULT_SECONDS = 1.0
LEASE_MARGIN_SECONDS = 30.0  # a lease outlives its request's timeout by this much

# KEYS: clock, in flight, ramp start, hold-off end, the circuit's probation key.
# ARGV: per second, in flight, lease id, lease ms, max wait ms, ramp start, ramp step ms.
# Returns {1, ms until the slot} (the lease is taken) or {0, ms to wait before asking again}.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local hold = tonumber(redis.call('GET', KEYS[4]) or '0')
if hold > now then return {0, math.ceil(hold - now)} end
local rate, flight = tonumber(ARGV[1]), tonumber(ARGV[2])
if redis.call('EXISTS', KEYS[5]) == 1 then
  rate, flight = 1, 1
else
  local ramp = redis.call('GET', KEYS[3])
  if ramp then
    local share = tonumber(ARGV[6]) * 2 ^ (math.max(0, now - tonumber(ramp)) / tonumber(ARGV[7]))
    if share < 1 then
      rate = math.max(1, rate * share)
      flight = math.max(1, math.floor(flight * share))
    end
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= flight then return {0, 0} end
local interval = 1000 / rate
local slot = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
if slot - now > tonumber(ARGV[5]) then return {0, math.ceil(slot - now - tonumber(ARGV[5]))} end
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', math.ceil(slot + interval - now) + 1000)
redis.call('ZADD', KEYS[2], slot + tonumber(ARGV[4]), ARGV[3])
redis.call('PEXPIRE', KEYS[2], math.ceil(slot - now + tonumber(ARGV[4])))
return {1, math.ceil(slot - now)}
"""

# KEYS: hold-off end, ramp start, clock. ARGV: hold ms, ramp ms.
_HOLD = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local until_ms = now + tonumber(ARGV[1])
if tonumber(redis.call('GET', KEYS[1]) or '0') < until_ms then
  redis.call('SET', KEYS[1], tostring(until_ms), 'PX', math.ceil(tonumber(ARGV[1])) + 1)
end
redis.call('SET', KEYS[2], tostring(until_ms), 'PX', math.ceil(tonumber(ARGV[1]) + tonumber(ARGV[2])) + 1)
if tonumber(redis.call('GET', KEYS[3]) or '0') < until_ms then
  redis.call('SET', KEYS[3], tostring(until_ms), 'PX', math.ceil(tonumber(ARGV[1])) + 1000)
end
"""

_RAMP = """
local t = redis.call('TIME')
redis.call('SET', KEYS[1], tostring(tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000), 'PX', ARGV[1])
"""


@dataclass(frozen=True)
class Permit:
    gateway: str
    lease: str


class Pacer:
    def __init__(self, client: redis.Redis, namespace: str, *, request_seconds: float,
                 max_wait: float = MAX_WAIT_SECONDS, lease_margin: float = LEASE_MARGIN_SECONDS) -> None:
        """`request_seconds`: the longest a request may take (the gateways' timeout), so a lease
        held by a worker that died ends `lease_margin` seconds after; `max_wait` in seconds."""
        self.client = client
        self.prefix = f"{namespace}:sms-pace"
        self.max_wait = max_wait
        self.lease_ms = (max_wait + request_seconds + lease_margin) * 1000
        self._acquire = client.register_script(_ACQUIRE)
        self._hold = client.register_script(_HOLD)
        self._ramp = client.register_script(_RAMP)

    def _key(self, gateway: str, what: str) -> str:
        return f"{self.prefix}:{gateway}:{what}"

    def acquire(self, gateway: str, limits: Limits, *, probation_key: str) -> Permit:
        """A permit to send to `gateway` now (sleeping until its slot); Paced when none comes within
        `max_wait`."""
        lease = uuid.uuid4().hex
        keys = [self._key(gateway, what) for what in ("clock", "in-flight", "ramp", "hold")] + [probation_key]
        args: list[str | float] = [limits.per_second, limits.in_flight, lease, self.lease_ms, self.max_wait * 1000,
                                   RAMP_START, RAMP_STEP_SECONDS * 1000]
        deadline = time.monotonic() + self.max_wait
        while True:
            granted, wait_ms = self._acquire(keys=keys, args=args)
            wait = int(wait_ms) / 1000
            if granted:
                time.sleep(wait)
                return Permit(gateway, lease)
            wait = wait or POLL_SECONDS
            if time.monotonic() + wait > deadline:
                raise Paced(f"{gateway} is at its pace (at most {limits.per_second} a second, {limits.in_flight} "
                            "at once)", retry_after=max(wait, POLL_SECONDS))
            time.sleep(wait)

    def release(self, permit: Permit) -> None:
        self.client.zrem(self._key(permit.gateway, "in-flight"), permit.lease)

    def hold_off(self, gateway: str, seconds: float | None) -> None:
        """The gateway said "too many requests": nobody sends to it for `seconds`, then it ramps up."""
        hold_ms = (HOLD_DEFAULT_SECONDS if seconds is None else seconds) * 1000
        self._hold(keys=[self._key(gateway, "hold"), self._key(gateway, "ramp"), self._key(gateway, "clock")],
                   args=[hold_ms, RAMP_SECONDS * 1000])

    def ramp_up(self, gateway: str) -> None:
        """The gateway is back (its probe got through): its pace starts low and doubles to its settings."""
        self._ramp(keys=[self._key(gateway, "ramp")], args=[int(RAMP_SECONDS * 1000)])


def limits_of(kind: str, per_second: int | None, in_flight: int | None) -> Limits:
    """A gateway's settings, its type's defaults where it has none."""
    default = DEFAULTS.get(kind, DEFAULTS[types.JSON])
    return Limits(per_second or default.per_second, in_flight or default.in_flight)


class Pacing:
    """The pace of the gateways in use, for one send: `limits` by gateway name (a gateway not named
    is not paced), `probation_key(name)` the circuit breaker's key of a gateway on probation. Redis
    out of reach while taking a permit means no permit: Paced, so the send waits rather than storm."""

    def __init__(self, pacer: Pacer, limits: Mapping[str, Limits], probation_key: Callable[[str], str]) -> None:
        self.pacer, self.limits, self.probation_key = pacer, limits, probation_key

    def acquire(self, gateway: str) -> Permit | None:
        limits = self.limits.get(gateway)
        if limits is None:
            return None
        try:
            return self.pacer.acquire(gateway, limits, probation_key=self.probation_key(gateway))
        except REDIS_UNAVAILABLE as exc:
            raise Paced(f"{gateway}'s pace cannot be read (Redis unavailable: {exc!r})",
                        retry_after=HOLD_DEFAULT_SECONDS) from exc

    def release(self, permit: Permit | None) -> None:
        """Advice from here on: a lease not given back ends by itself."""
        if permit is not None:
            with _advice("lease not given back"):
                self.pacer.release(permit)

    def hold_off(self, gateway: str, seconds: float | None) -> None:
        with _advice("429 not shared with the other workers"):
            self.pacer.hold_off(gateway, seconds)

    def ramp_up(self, gateway: str) -> None:
        with _advice("ramp not started"):
            self.pacer.ramp_up(gateway)


@contextlib.contextmanager
def _advice(what: str) -> Iterator[None]:
    # Once a provider was called, a Redis outage must not turn a known outcome into an error.
    try:
        yield
    except REDIS_UNAVAILABLE as exc:
        log.warning("SMS gateway pace: %s (Redis unavailable: %r)", what, exc)
