"""The dispatch stage's records of sends: the sends that threads of a worker record at the same
moment share one statement, and each notification still gets its own details and its own move."""
from __future__ import annotations

import functools
import logging

import peewee
from prometheus_client.parser import text_string_to_metric_families

from models.notification import Notification
from observability import metrics
from pipeline.domain import statuses
from pipeline.stages import dispatch, status_changes
from tests.batching_helpers import batcher_of, taken_together
from tests.factories import create_notification


def _record_together(sends: list[tuple[Notification, dispatch.Dispatched]], plug: Notification) -> dict[int, bool]:
    """record_sent for every send, each on its own thread, all taken by one round."""
    moved: dict[int, bool] = {}

    def record(index: int, notification: Notification, sent: dispatch.Dispatched) -> None:
        moved[index] = dispatch.record_sent(notification, sent)

    held = ("sending", plug.id, {"sent_at": None, "sent_by": "plug", "provider_reference": None, "billable_units": 0,
                                 "dispatch_started_at": None})
    taken_together(batcher_of(dispatch._sent_together), held, [functools.partial(record, index, *send)
                                                   for index, send in enumerate(sends)])
    return moved


def test_sends_recorded_together_each_keep_their_own_details(service):
    texts = [create_notification(service=service, body="x" * length) for length in (100, 300, 400)]  # 1, 2, 3 parts
    abroad = create_notification(service=service, international=True)
    email = create_notification(service=service, notification_type="email")
    overtaken = create_notification(service=service, status="delivered")  # its receipt came first
    sends = [(n, dispatch.Dispatched("mmg", f"ref-{i}")) for i, n in enumerate([*texts, abroad, email, overtaken])]

    moved = _record_together(sends, create_notification(service=service))

    assert moved == {0: True, 1: True, 2: True, 3: True, 4: True, 5: False}
    rows = {row.id: row for row in Notification.select()}
    assert [(rows[n.id].status, rows[n.id].provider_reference, rows[n.id].billable_units) for n in texts] == [
        ("sending", "ref-0", 1), ("sending", "ref-1", 2), ("sending", "ref-2", 3)]
    assert (rows[abroad.id].status, rows[abroad.id].provider_reference) == ("sent", "ref-3")  # no receipt will come
    assert (rows[email.id].status, rows[email.id].provider_reference, rows[email.id].billable_units) == (
        "sending", "ref-4", 0)
    assert all(rows[n.id].sent_by == "mmg" and rows[n.id].sent_at is not None for n, _ in sends[:5])
    # The receipt's status stands; the send's own details are filled in beside it.
    assert (rows[overtaken.id].status, rows[overtaken.id].provider_reference) == ("delivered", "ref-5")


def out_of_order_count(current: str, refused: str) -> float:
    """notify_status_transitions_out_of_order_total{from=current, to=refused}, as this process exposes it."""
    text = metrics.exposition()[0].decode()
    return sum(sample.value for family in text_string_to_metric_families(text) for sample in family.samples
               if sample.name == "notify_status_transitions_out_of_order_total"
               and sample.labels == {"from": current, "to": refused})


def test_a_send_recorded_after_its_receipt_is_counted_quietly(service, caplog):
    overtaken = create_notification(service=service, status="delivered")  # its receipt came first
    before = out_of_order_count("delivered", "sending")

    with caplog.at_level(logging.DEBUG, logger="pipeline.stages.status_changes"):
        assert dispatch.record_sent(overtaken, dispatch.Dispatched("mmg", "ref-1")) is False

    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "pipeline.stages.status_changes"] == [
        ("DEBUG", f"status change of {overtaken.id} from delivered to sending out of order: already further on")]
    assert out_of_order_count("delivered", "sending") - before == 1
    row = Notification.get_by_id(overtaken.id)
    assert (row.status, row.provider_reference) == ("delivered", "ref-1")


def test_a_send_recorded_for_a_cancelled_message_still_warns(service, caplog):
    cancelled = create_notification(service=service, status="cancelled")
    before = out_of_order_count("cancelled", "sending")

    with caplog.at_level(logging.DEBUG, logger="pipeline.stages.status_changes"):
        assert dispatch.record_sent(cancelled, dispatch.Dispatched("mmg", "ref-2")) is False

    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "pipeline.stages.status_changes"] == [
        ("WARNING", f"refused status change of {cancelled.id} from cancelled to sending")]
    assert out_of_order_count("cancelled", "sending") == before


def test_a_send_recorded_twice_at_once_moves_once(service):
    send = create_notification(service=service)
    moved = _record_together([(send, dispatch.Dispatched("mmg", "first")),
                              (send, dispatch.Dispatched("mmg", "second"))], create_notification(service=service))
    assert sorted(moved.values()) == [False, True]
    winner = "first" if moved[0] else "second"
    row = Notification.get_by_id(send.id)
    assert (row.status, row.provider_reference) == ("sending", winner)


def test_a_failed_statement_fails_only_the_sends_it_carried(service, monkeypatch):
    """One statement per new status: an international text's (sent) failing leaves the domestic
    one's (sending), already committed, standing."""
    domestic = create_notification(service=service)
    abroad = create_notification(service=service, international=True)
    real = status_changes.transition_each

    def failing_for_sent(new_status, changes):
        if new_status == statuses.SENT:
            raise peewee.OperationalError("server closed the connection unexpectedly")
        return real(new_status, changes)

    monkeypatch.setattr(status_changes, "transition_each", failing_for_sent)
    fields = {"sent_at": None, "sent_by": "mmg", "provider_reference": "ref", "billable_units": 1,
              "dispatch_started_at": None}
    outcomes = dispatch._record_sent_together([("sending", domestic.id, fields), ("sent", abroad.id, fields)])

    assert outcomes[0] is True and isinstance(outcomes[1], peewee.OperationalError)
    assert [Notification.get_by_id(n.id).status for n in (domestic, abroad)] == ["sending", "created"]
