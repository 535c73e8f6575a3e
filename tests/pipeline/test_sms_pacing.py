"""Each gateway's pace, kept in the real Redis: messages a second, requests in flight, the probe on
probation, the ramp after it and the hold-off a 429 asks for, across threads as across processes."""
from __future__ import annotations

import threading
import time

import pytest

from config import get_settings
from pipeline.infrastructure.providers.errors import Paced
from pipeline.infrastructure.providers.sms import pacing
from pipeline.infrastructure.providers.sms.pacing import Limits, Pacer
from workers.broker import ops_redis

PROBATION = f"{get_settings().queue_namespace}:sms-circuit:gw:probation"


def pacer(**options: float) -> Pacer:
    return Pacer(ops_redis(), get_settings().queue_namespace, request_seconds=1.0, **options)


def permit_times(pace: Pacer, count: int, limits: Limits, release: bool = True) -> list[float]:
    """When each of `count` threads got its permit (monotonic), sorted."""
    times: list[float] = []
    lock = threading.Lock()

    def take() -> None:
        permit = pace.acquire("gw", limits, probation_key=PROBATION)
        with lock:
            times.append(time.monotonic())
        if release:
            pace.release(permit)

    threads = [threading.Thread(target=take) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(times)


def test_permits_come_at_the_gateways_rate_however_many_ask_at_once() -> None:
    started = time.monotonic()
    times = permit_times(pacer(max_wait=5), 20, Limits(per_second=10, in_flight=20))

    # 20 at 10 a second: the first at once, the last about 1.9 s later, never two in one slot.
    assert times[0] - started < 0.5
    assert 1.7 < times[-1] - times[0] < 3.0
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert sum(gap < 0.05 for gap in gaps) <= 2  # a thread woken late may land next to the following one


def test_requests_in_flight_are_bounded_and_a_release_makes_room() -> None:
    pace = pacer(max_wait=0.3)
    limits = Limits(per_second=1000, in_flight=2)
    first = pace.acquire("gw", limits, probation_key=PROBATION)
    pace.acquire("gw", limits, probation_key=PROBATION)

    with pytest.raises(Paced, match="gw is at its pace") as raised:
        pace.acquire("gw", limits, probation_key=PROBATION)
    assert raised.value.certainly_not_delivered and raised.value.retry_after > 0

    pace.release(first)
    pace.acquire("gw", limits, probation_key=PROBATION)


def test_a_lease_of_a_worker_that_died_ends_by_itself() -> None:
    pace = Pacer(ops_redis(), get_settings().queue_namespace, request_seconds=0.2, max_wait=0.1, lease_margin=0.1)
    limits = Limits(per_second=1000, in_flight=1)
    pace.acquire("gw", limits, probation_key=PROBATION)  # never released
    with pytest.raises(Paced):
        pace.acquire("gw", limits, probation_key=PROBATION)
    time.sleep(0.5)
    pace.acquire("gw", limits, probation_key=PROBATION)


def test_on_probation_one_probe_goes_at_a_time() -> None:
    ops_redis().set(PROBATION, "1", ex=30)
    pace = pacer(max_wait=0.3)
    limits = Limits(per_second=1000, in_flight=50)
    probe = pace.acquire("gw", limits, probation_key=PROBATION)
    with pytest.raises(Paced):
        pace.acquire("gw", limits, probation_key=PROBATION)
    pace.release(probe)


def test_after_the_probe_the_pace_ramps_up_from_an_eighth() -> None:
    pace = pacer(max_wait=5)
    pace.ramp_up("gw")
    started = time.monotonic()
    # 80 a second ramps from 10: 12 permits take a second or more at first, not 0.15 s.
    times = permit_times(pace, 12, Limits(per_second=80, in_flight=80))
    assert times[-1] - started > 0.9

    ops_redis().delete(f"{get_settings().queue_namespace}:sms-pace:gw:ramp")  # the ramp over
    ops_redis().delete(f"{get_settings().queue_namespace}:sms-pace:gw:clock")
    started = time.monotonic()
    times = permit_times(pace, 12, Limits(per_second=80, in_flight=80))
    assert times[-1] - started < 0.6


def test_a_429_holds_every_sender_off_for_its_retry_after() -> None:
    pace = pacer(max_wait=0.2)
    limits = Limits(per_second=1000, in_flight=50)
    pace.hold_off("gw", 1.0)
    with pytest.raises(Paced) as raised:
        pace.acquire("gw", limits, probation_key=PROBATION)
    assert 0.5 < raised.value.retry_after <= 1.0

    time.sleep(1.1)
    pace.acquire("gw", limits, probation_key=PROBATION)  # then the ramp begins
    assert ops_redis().exists(f"{get_settings().queue_namespace}:sms-pace:gw:ramp")


def test_settings_fall_back_to_the_types_defaults() -> None:
    assert pacing.limits_of("twilio", None, None) == pacing.DEFAULTS["twilio"]
    assert pacing.limits_of("spryng", 5, None) == Limits(5, pacing.DEFAULTS["spryng"].in_flight)
    assert pacing.limits_of("cm", 7, 3) == Limits(7, 3)
