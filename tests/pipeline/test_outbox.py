"""Outboxes on real Redis: batches, one flush at a time, nothing lost."""
from __future__ import annotations

import threading
import uuid

import pytest
import redis

from pipeline.infrastructure import outbox as outbox_module
from pipeline.infrastructure.outbox import Outbox
from workers.broker import current_broker

broker = current_broker()  # conftest built it through the web app's factory


@pytest.fixture
def outbox() -> Outbox:
    return Outbox(broker.client, f"test-{uuid.uuid4().hex[:8]}:outbox")


def _receipt(n: int) -> dict:
    return {"id": f"sim-{n}", "reference": str(n), "status": "delivered"}


def _never_handed_over() -> None:
    raise AssertionError("a flush within its budget handed over")


def test_only_the_first_receipt_asks_for_a_flush_until_the_flush_is_done(outbox):
    assert [outbox.add(_receipt(n)) for n in range(3)] == [True, False, False]
    outbox.flush("f1", lambda batch: None, _never_handed_over)
    assert outbox.add(_receipt(3)) is True


def test_a_flush_posts_everything_in_order_in_batches(outbox, monkeypatch):
    monkeypatch.setattr(outbox_module, "BATCH_SIZE", 2)
    posted: list[list[dict]] = []
    for n in range(5):
        outbox.add(_receipt(n))

    assert outbox.flush("f1", posted.append, _never_handed_over) == 5
    assert posted == [[_receipt(0), _receipt(1)], [_receipt(2), _receipt(3)], [_receipt(4)]]


def test_receipts_added_while_flushing_go_in_the_same_flush(outbox):
    posted: list[list[dict]] = []

    def post(batch: list[dict]) -> None:
        posted.append(batch)
        if len(posted) == 1:
            assert outbox.add(_receipt(99)) is False  # the running flush will take it
    outbox.add(_receipt(1))

    outbox.flush("f1", post, _never_handed_over)
    assert posted == [[_receipt(1)], [_receipt(99)]]


def test_a_flush_past_its_budget_hands_over_to_the_next_one_still_armed(outbox, monkeypatch):
    monkeypatch.setattr(outbox_module, "BATCH_SIZE", 2)
    for n in range(5):
        outbox.add(_receipt(n))
    handed_over: list[bool] = []
    posted: list[list[dict]] = []

    assert outbox.flush("f1", posted.append, lambda: handed_over.append(True), budget_seconds=0) == 2
    assert handed_over == [True] and posted == [[_receipt(0), _receipt(1)]]
    assert outbox.add(_receipt(5)) is False  # the flush handed over to holds the flag
    assert outbox.flush("f2", posted.append, _never_handed_over) == 4
    assert posted[1:] == [[_receipt(2), _receipt(3)], [_receipt(4), _receipt(5)]]
    assert outbox.add(_receipt(6)) is True


def test_a_batch_the_webhook_did_not_take_is_posted_first_by_the_retried_flush(outbox, monkeypatch):
    monkeypatch.setattr(outbox_module, "BATCH_SIZE", 2)
    for n in range(3):
        outbox.add(_receipt(n))

    def webhook_down(batch: list[dict]) -> None:
        raise ConnectionError("webhook down")
    with pytest.raises(ConnectionError):
        outbox.flush("f1", webhook_down, _never_handed_over)
    assert outbox.add(_receipt(3)) is False  # still armed by the failed flush, whose retry will come
    posted: list[list[dict]] = []
    outbox.flush("f1", posted.append, _never_handed_over)  # the broker's retry carries the same flush id

    assert posted == [[_receipt(0), _receipt(1)], [_receipt(2), _receipt(3)]]


def test_another_flush_never_takes_a_batch_held_by_a_failed_one(outbox):
    outbox.add(_receipt(1))
    with pytest.raises(ConnectionError):
        outbox.flush("f1", lambda batch: (_ for _ in ()).throw(ConnectionError("down")), _never_handed_over)
    outbox.add(_receipt(2))
    posted: list[list[dict]] = []
    outbox.flush("f2", posted.append, _never_handed_over)
    outbox.flush("f1", posted.append, _never_handed_over)
    assert posted == [[_receipt(2)], [_receipt(1)]]


def test_the_periodic_sweep_flushes_what_lost_flush_messages_left_behind(service, live_server, worker):
    from tests.conftest import status_of, wait_for
    from tests.factories import create_notification
    from workers.periodic import sweep_outboxes
    from workers.receipts import simulated_outbox

    to_send = create_notification(service=service, key_type="test", fragment_count=1)
    sending = create_notification(service=service, status="sending", key_type="test")
    for outbox, item in ((simulated_outbox("sends"), str(to_send.id)),
                         (simulated_outbox("receipts"), {"id": "sim-1", "reference": str(sending.id),
                                                         "status": "delivered"})):
        outbox.client.set(outbox.flag, 1)  # armed by a flush whose message was then lost
        assert outbox.add(item) is False

    sweep_outboxes.send()
    wait_for(lambda: {status_of(n.id) for n in (to_send, sending)} == {"delivered"})
    assert simulated_outbox("sends").waiting() == simulated_outbox("receipts").waiting() == 0


def test_a_flush_that_gives_up_hands_its_batch_back_in_order(outbox, monkeypatch):
    monkeypatch.setattr(outbox_module, "BATCH_SIZE", 2)
    for n in range(3):
        outbox.add(_receipt(n))
    with pytest.raises(ConnectionError):
        outbox.flush("f1", lambda batch: (_ for _ in ()).throw(ConnectionError("down")), _never_handed_over)

    assert outbox.give_back("f1") == 2 and outbox.give_back("f1") == 0
    posted: list[list[dict]] = []
    outbox.flush("f2", posted.append, _never_handed_over)
    assert posted == [[_receipt(0), _receipt(1)], [_receipt(2)]]


def test_the_give_back_actor_finds_the_outbox_of_the_flush_that_gave_up():
    from workers.receipts import give_back_outbox_batch, simulated_outbox

    for outbox, flush_actor in ((simulated_outbox("sends"), "flush_simulated_sends"),
                                (simulated_outbox("receipts"), "flush_simulated_receipts")):
        outbox.add("n-1")
        with pytest.raises(ConnectionError):
            outbox.flush("f9", lambda batch: (_ for _ in ()).throw(ConnectionError("down")), _never_handed_over)
        assert outbox.waiting() == 0
        give_back_outbox_batch({"actor_name": flush_actor, "args": ["f9"]}, {})
        assert outbox.waiting() == 1


def test_threads_adding_at_once_put_everything_in_and_one_of_them_starts_the_flush(outbox):
    armed: list[bool] = []
    threads = [threading.Thread(target=lambda n=n: armed.append(outbox.add(_receipt(n)))) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)

    assert sorted(armed) == [False] * 39 + [True]
    posted: list[list[dict]] = []
    assert outbox.flush("f1", posted.append, _never_handed_over) == 40
    assert sorted(receipt["id"] for batch in posted for receipt in batch) == sorted(f"sim-{n}" for n in range(40))


def test_threads_adding_while_redis_is_unreachable_each_raise():
    from tests.conftest import unreachable_outbox

    unreachable = unreachable_outbox()
    failures: list[str] = []

    def add(n: int) -> None:
        try:
            unreachable.add(_receipt(n))
        except redis.ConnectionError:
            failures.append(f"sim-{n}")

    threads = [threading.Thread(target=add, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(failures) == sorted(f"sim-{n}" for n in range(10))
