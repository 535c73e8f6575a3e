"""Today's send limits per service and kind (sms, email, letter, international_sms): the one place
that counts against them, in Redis, for every door.

A send of the API or the console counts one against each of its limits when it is recorded
(pipeline/infrastructure/throughput); a bulk job counts all its rows at once when it starts; a
cancelled message gives its counts back. All of them use the keys made here, so they count against
one limit.
"""
from __future__ import annotations

import datetime

from pipeline.domain.errors import Refusal, TooManyRequestsError
from pipeline.infrastructure.redis_state import client, namespaced

DAILY_KEY_TTL_SECONDS = 2 * 24 * 3600

# One send counted against one of today's limits: the counter's key, the limit and the limit's kind.
DailyCount = tuple[str, int, str]


def today() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")


def daily_key(service_id: object, kind: str, day: str) -> str:
    return namespaced("daily", service_id, kind, day)


def limit_message(kind: str, limit: int) -> Refusal:
    return Refusal("daily_limit_exceeded", f"Exceeded send limits ({kind}: {limit}) for today",
                   {"kind": kind, "limit": limit})


def daily_counts(service_id: object, limits: dict[str, int]) -> tuple[DailyCount, ...]:
    """What a send of service_id counts against each of today's limits named (e.g. sms and
    international_sms), for count_sends."""
    day = today()
    return tuple((daily_key(service_id, kind, day), limit, kind) for kind, limit in limits.items())


def used_today(service_id: object, kinds: list[str]) -> dict[str, int]:
    """How many sends of each kind today's counters hold."""
    values = client().mget([daily_key(service_id, kind, today()) for kind in kinds])
    return {kind: int(value or 0) for kind, value in zip(kinds, values, strict=True)}


def count_sends(sends: list[tuple[DailyCount, ...]]) -> list[TooManyRequestsError | None]:
    """Count every send against its limits in one round trip, in the order given: each send is
    counted as an INCR of its own would count it. A send that would exceed any of its limits gets
    the refusal and its counts are given back (a second round trip, only then); None for the others."""
    totals: dict[str, int] = {}
    for send in sends:
        for key, _, _ in send:
            totals[key] = totals.get(key, 0) + 1
    if not totals:
        return [None] * len(sends)
    pipe = client().pipeline(transaction=False)
    for key, added in totals.items():  # one INCRBY per key, however many sends count against it
        pipe.incrby(key, added)
        pipe.expire(key, DAILY_KEY_TTL_SECONDS)
    reached = {key: reply - totals[key] for key, reply in zip(totals, pipe.execute()[::2], strict=True)}

    def value(key: str) -> int:
        reached[key] += 1
        return reached[key]

    outcomes: list[TooManyRequestsError | None] = []
    given_back: list[str] = []
    for send in sends:
        over = [(kind, limit) for (key, limit, kind) in send if value(key) > limit]
        if over:
            given_back.extend(key for key, _, _ in send)
            outcomes.append(TooManyRequestsError(limit_message(*over[0])))
        else:
            outcomes.append(None)
    give_back(given_back)
    return outcomes


def reserve_sends(daily: tuple[DailyCount, ...], sends: int = 1) -> list[str]:
    """Count `sends` sends against each of the limits in daily, all or none: the keys counted, a key
    a send, to give back if the sends are not made. Raises TooManyRequestsError, counting nothing,
    when any would be exceeded."""
    if not daily or not sends:
        return []
    refusals = count_sends([daily] * sends)
    counted = [key for refused in refusals if refused is None for key, _, _ in daily]
    refused = next((refused for refused in refusals if refused is not None), None)
    if refused is not None:
        give_back(counted)
        raise refused
    return counted


def give_back(keys: list[str]) -> None:
    """Give back one send counted against each key (a send that was not recorded after all)."""
    if keys:
        pipe = client().pipeline(transaction=False)
        for key in keys:
            pipe.decr(key)
        pipe.execute()


def give_back_of(service_id: object, kinds: tuple[str, ...], counted_on: datetime.date) -> None:
    """Give back one send counted on that day against each limit named (a cancelled message). Only
    today's counts limit anything; an older day's key may have expired, and a DECR would make it anew
    without an expiry, so those are left alone."""
    if counted_on == datetime.datetime.now(datetime.UTC).date():
        give_back([daily_key(service_id, kind, f"{counted_on:%Y-%m-%d}") for kind in kinds])


def reserve(service_id: object, wanted: dict[str, int], limits: dict[str, int]) -> dict[str, int]:
    """Count wanted[kind] sends against today's limit of each kind, all or none (a bulk job).

    Raises TooManyRequestsError (counting nothing) when any kind would go over its limit; returns
    the amounts counted per key, for release().
    """
    day = today()
    amounts = {daily_key(service_id, kind, day): n for kind, n in wanted.items() if n}
    pipe = client().pipeline(transaction=False)
    for key, n in amounts.items():
        pipe.incrby(key, n)
        pipe.expire(key, DAILY_KEY_TTL_SECONDS)
    reached = pipe.execute()[::2]
    for kind, value in zip([kind for kind, n in wanted.items() if n], reached, strict=True):
        if value > limits[kind]:
            release(amounts)
            raise TooManyRequestsError(limit_message(kind, limits[kind]))
    return amounts


def release(amounts: dict[str, int]) -> None:
    if amounts:
        pipe = client().pipeline(transaction=False)
        for key, n in amounts.items():
            pipe.decrby(key, n)
        pipe.execute()
