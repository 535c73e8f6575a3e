"""The throughput seam's implementations behave alike (docs/architecture.md#speed-behind-one-seam):
each operation of the Throughput interface, run through the same cases on `reference` and on `fast`
against the real database, gives the same outcome; and each implementation has every operation of
the interface and no other public one. A new operation adds its cases here."""
from __future__ import annotations

import datetime
import inspect
import time
import uuid
from collections import Counter

import pytest

from models import cache, crypto
from models.db import database, utcnow
from models.held_count import HeldCountChange
from models.held_receipt import HeldReceipt
from models.notification import Notification
from pipeline.domain.errors import RateLimitError, TooManyRequestsError
from pipeline.infrastructure import daily_limits, redis_state, throughput
from pipeline.infrastructure.throughput.fast import Fast
from pipeline.infrastructure.throughput.reference import Reference
from tests.factories import create_notification, create_service
from tests.faults import make_unreadable

OPERATIONS = {name for name, value in vars(throughput.Throughput).items()
              if inspect.isfunction(value) and not name.startswith("_")}


@pytest.fixture(params=throughput.IMPLEMENTATIONS)
def seam(request) -> throughput.Throughput:
    return throughput.build(request.param)


def test_the_interface_names_the_operations_the_callers_use():
    assert OPERATIONS == {
        "record", "check_rate_limit", "settings_generation", "change_status", "change_statuses",
        "change_each_status", "awaiting_dispatch", "claim_awaiting", "claim", "release", "any_held_receipt",
        "held_counts", "fold_held_counts", "submit_all"}


@pytest.mark.parametrize("implementation", [Reference, Fast])
def test_each_implementation_has_every_operation_and_no_other_public_name(implementation):
    public = {name for name in dir(implementation) if not name.startswith("_")}
    assert public == OPERATIONS
    for name in OPERATIONS:
        ours = inspect.signature(getattr(implementation(), name))
        contract = inspect.signature(getattr(throughput.Throughput, name))
        assert list(ours.parameters) == [p for p in contract.parameters if p != "self"], name


@pytest.mark.parametrize("name", throughput.IMPLEMENTATIONS)
def test_build_makes_the_implementation_the_setting_names(name):
    assert type(throughput.build(name)) is {"fast": Fast, "reference": Reference}[name]


# record

def _unsaved(service, key_type: str = "live") -> Notification:
    """A row as a send hands it to record(): not yet written."""
    return Notification(id=uuid.uuid4(), service=service.id, key_type=key_type, notification_type="sms",
                        status="created", template_id=uuid.uuid4(), template_version=1, body="Hello",
                        to="+31612345678", normalised_to="+31612345678", created_at=utcnow())


def _daily_count(service) -> int:
    return int(redis_state.client().get(daily_limits.daily_counts(service.id, {"sms": 0})[0][0]) or 0)


def _stored(service) -> set[uuid.UUID]:
    return {row.id for row in Notification.select(Notification.id).where(Notification.service == service.id)}


def test_record_writes_a_row_counts_it_and_hands_it_to_enqueue(seam, service):
    row, enqueued = _unsaved(service), []
    seam.record([row], enqueued.extend, daily_limits.daily_counts(service.id, {"sms": 5}))
    assert _stored(service) == {row.id}
    assert [each.id for each in enqueued] == [row.id]
    assert _daily_count(service) == 1


def test_record_past_todays_limit_refuses_and_writes_and_counts_nothing(seam, service):
    daily = daily_limits.daily_counts(service.id, {"sms": 1})
    seam.record([_unsaved(service)], lambda rows: None, daily)
    enqueued: list[Notification] = []
    with pytest.raises(TooManyRequestsError, match=r"Exceeded send limits \(sms: 1\) for today"):
        seam.record([_unsaved(service)], enqueued.extend, daily)
    assert len(_stored(service)) == 1 and enqueued == []
    assert _daily_count(service) == 1


def test_record_saves_with_each_row_in_its_transaction(seam, service):
    rows, saved = [_unsaved(service) for _ in range(3)], []

    def with_row(row: Notification) -> None:
        saved.append((row.id, database.in_transaction()))

    seam.record(rows, lambda rows: None, daily_limits.daily_counts(service.id, {"sms": 5}), with_row)
    assert saved == [(row.id, True) for row in rows]
    assert _stored(service) == {row.id for row in rows} and _daily_count(service) == 3


def test_record_that_fails_writes_nothing_and_gives_its_counts_back(seam, service):
    def with_row(row: Notification) -> None:
        raise OSError("the files could not be saved")

    with pytest.raises(OSError, match="the files could not be saved"):
        seam.record([_unsaved(service), _unsaved(service)], lambda rows: None,
                    daily_limits.daily_counts(service.id, {"sms": 5}), with_row)
    assert _stored(service) == set() and _daily_count(service) == 0


def test_record_in_a_transaction_of_the_caller_joins_it(seam, service):
    with pytest.raises(RuntimeError), database.atomic():
        seam.record([_unsaved(service)], lambda rows: None)
        raise RuntimeError("the caller's transaction rolls back")
    assert _stored(service) == set()


# check_rate_limit

def _in_one_window() -> None:
    """Wait out the end of a rate window nearly over: the cases count within one."""
    left = throughput.RATE_WINDOW_SECONDS - time.time() % throughput.RATE_WINDOW_SECONDS
    if left < 3:
        time.sleep(left + 0.1)


def test_check_rate_limit_refuses_past_the_limit_of_the_key_type(seam):
    _in_one_window()
    service_id = uuid.uuid4()
    for _ in range(3):
        seam.check_rate_limit(service_id, "normal", 3)
    with pytest.raises(RateLimitError) as refused:
        seam.check_rate_limit(service_id, "normal", 3)
    assert refused.value.messages == ["Exceeded rate limit for key type normal of 3 requests per 60 seconds"]
    seam.check_rate_limit(service_id, "team", 3)  # another key type counts apart


# settings_generation

def test_settings_generation_reads_what_redis_holds(seam):
    key = cache.generation_key()
    before = redis_state.client().get(key)
    try:
        redis_state.client().set(key, b"generation-1")
        assert seam.settings_generation() == b"generation-1"
        redis_state.client().delete(key)
        assert seam.settings_generation() is None
    finally:
        if before is not None:
            redis_state.client().set(key, before)


# Status changes

def _status(notification: Notification) -> str:
    return Notification.get_by_id(notification.id).status


def test_change_status_moves_only_from_an_allowed_status(seam, service):
    email = create_notification(service=service, notification_type="email")
    assert seam.change_status(email.id, frozenset({"created"}), {"status": "sending", "sent_by": "smtp"}) == "email"
    assert (_status(email), Notification.get_by_id(email.id).sent_by) == ("sending", "smtp")
    assert seam.change_status(email.id, frozenset({"created"}), {"status": "failed"}) is None
    assert seam.change_status(uuid.uuid4(), frozenset({"created"}), {"status": "failed"}) is None
    assert _status(email) == "sending"


def test_change_statuses_moves_those_in_an_allowed_status(seam, service):
    sms, email = create_notification(service=service), create_notification(service=service, notification_type="email")
    delivered = create_notification(service=service, status="delivered")
    moved = seam.change_statuses([sms.id, email.id, delivered.id, uuid.uuid4()], frozenset({"created", "sending"}),
                                 {"status": "sending"})
    assert sorted(moved) == sorted([(sms.id, "sms"), (email.id, "email")])
    assert [_status(n) for n in (sms, email, delivered)] == ["sending", "sending", "delivered"]


def test_change_statuses_copies_another_column_of_the_row(seam, service):
    sms = create_notification(service=service, status="sending", created_at=datetime.datetime(2026, 1, 2, 3, 4))
    assert seam.change_statuses([sms.id], frozenset({"sending"}),
                                {"status": "delivered", "sent_at": Notification.created_at}) == [(sms.id, "sms")]
    assert Notification.get_by_id(sms.id).sent_at == datetime.datetime(2026, 1, 2, 3, 4)


def test_change_each_status_writes_each_notifications_own_values(seam, service):
    first, second = create_notification(service=service, status="sending"), create_notification(service=service)
    done = create_notification(service=service, status="delivered")
    moved = seam.change_each_status(frozenset({"sending", "created"}), {"status": "delivered"},
                                    [(first.id, {"billable_units": 1}), (second.id, {"billable_units": 3}),
                                     (done.id, {"billable_units": 9})])
    assert sorted(moved) == sorted([(first.id, "sms"), (second.id, "sms")])
    rows = {row.id: (row.status, row.billable_units) for row in Notification.select()}
    assert rows == {first.id: ("delivered", 1), second.id: ("delivered", 3), done.id: ("delivered", None)}


# The sends awaiting dispatch

def test_awaiting_dispatch_finds_each_created_unclaimed_send_once(seam, service):
    waiting = create_notification(service=service, body="Your code is 1")
    claimed = create_notification(service=service, dispatch_started_at=utcnow())
    delivered = create_notification(service=service, status="delivered")
    unreadable = create_notification(service=service)
    make_unreadable(unreadable)
    found = seam.awaiting_dispatch([waiting.id, claimed.id, delivered.id, waiting.id, uuid.uuid4(), unreadable.id])
    assert [loaded is not None for loaded in found] == [True, False, False, False, False, True]
    assert found[0]().body == "Your code is 1"
    with pytest.raises(crypto.UNREADABLE):
        found[5]()
    assert Notification.get_by_id(waiting.id).dispatch_started_at is None  # read, not claimed


def test_claim_awaiting_claims_the_live_sends_it_finds(seam, service):
    live = create_notification(service=service, body="Your code is 2")
    test_key = create_notification(service=service, key_type="test")
    claimed = create_notification(service=service, dispatch_started_at=utcnow())
    found = seam.claim_awaiting([live.id, test_key.id, claimed.id, live.id])
    assert [loaded is not None for loaded in found] == [True, False, False, False]
    assert found[0]().body == "Your code is 2"
    assert Notification.get_by_id(live.id).dispatch_started_at is not None
    assert Notification.get_by_id(test_key.id).dispatch_started_at is None


def test_claim_claims_once(seam, service):
    sms, delivered = create_notification(service=service), create_notification(service=service, status="delivered")
    at = datetime.datetime(2026, 3, 4, 5, 6)
    assert seam.claim(sms.id, at) is True
    assert seam.claim(sms.id, at) is False
    assert seam.claim(delivered.id, at) is False
    assert Notification.get_by_id(sms.id).dispatch_started_at == at


def test_release_gives_the_claim_back_with_when_to_try_again(seam, service):
    sms = create_notification(service=service, dispatch_started_at=utcnow())
    retry_at = datetime.datetime(2026, 3, 4, 5, 7)
    seam.release(sms.id, retry_at)
    row = Notification.get_by_id(sms.id)
    assert (row.dispatch_started_at, row.retry_at) == (None, retry_at)
    assert seam.claim(sms.id, utcnow()) is True
    seam.release(sms.id, None)
    row = Notification.get_by_id(sms.id)
    assert (row.dispatch_started_at, row.retry_at) == (None, None)


def test_any_held_receipt_finds_a_receipt_held_for_the_providers_id(seam):
    assert seam.any_held_receipt("gateway", "m-1") is False
    HeldReceipt.create(provider="gateway", provider_id="m-1", receipt={"status": "delivered"})
    assert seam.any_held_receipt("gateway", "m-1") is True
    assert seam.any_held_receipt("another", "m-1") is False


# The held counts

def test_held_counts_count_the_notifications_per_day_and_kind(seam):
    service, other = create_service(name="counted"), create_service(name="other")
    today, yesterday = utcnow().date(), utcnow().date() - datetime.timedelta(days=1)
    for _ in range(2):
        create_notification(service=service)
    create_notification(service=service, notification_type="email", status="delivered", billable_units=1,
                        created_at=datetime.datetime.combine(yesterday, datetime.time(9)))
    create_notification(service=service, key_type="test")
    create_notification(service=other)
    expected = Counter({(today, "sms", "live", "created", "", 1, None): 2,
                        (yesterday, "email", "live", "delivered", "", 1, 1): 1})
    tomorrow = today + datetime.timedelta(days=1)
    assert seam.held_counts(service.id, yesterday, tomorrow, ("live", "team")) == expected
    assert seam.held_counts(service.id, today, tomorrow, ("test",)) == Counter(
        {(today, "sms", "test", "created", "", 1, None): 1})
    assert seam.held_counts(service.id, tomorrow, tomorrow + datetime.timedelta(days=1), ("live",)) == Counter()


def test_fold_held_counts_empties_the_journal_and_changes_no_count(seam):
    service = create_service()
    sms = create_notification(service=service)
    today = utcnow().date()
    span = (service.id, today, today + datetime.timedelta(days=1), ("live",))
    assert seam.fold_held_counts() > 0
    assert not HeldCountChange.select().exists()
    Notification.update(status="sending").where(Notification.id == sms.id).execute()
    assert seam.fold_held_counts() > 0
    assert seam.held_counts(*span) == Counter({(today, "sms", "live", "sending", "", 1, None): 1})
    assert seam.fold_held_counts() == 0


# submit_all

def _doubled(items: list[int]) -> list[int | BaseException]:
    return [ValueError(f"{item} is negative") if item < 0 else item * 2 for item in items]


def test_submit_all_gives_each_outcome_in_order_and_raises_the_first_failure(seam):
    group = throughput.grouped("conformance", _doubled)
    assert seam.submit_all(group, [1, 2, 3]) == [2, 4, 6]
    with pytest.raises(ValueError, match="-1 is negative"):
        seam.submit_all(group, [1, -1, -2])
