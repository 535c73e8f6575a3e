"""Receipts posted to the webhook, one at a time or in batches, moving statuses through real workers."""
from __future__ import annotations

import logging

from config import get_settings
from pipeline.domain import statuses
from pipeline.stages import status_changes
from pipeline.stages.receipts import apply_receipts
from tests.conftest import status_of, wait_for
from tests.factories import create_notification
from tests.test_dispatch_records import out_of_order_count

URL = "/providers/http-gateway/delivery-receipts"


def _post(client, body):
    return client.post(URL, json=body, headers={"Authorization": f"Bearer {get_settings().provider_webhook_token}"})


def test_a_batch_is_applied_in_the_order_given(client, worker, service):
    first, second, third = (create_notification(service=service, status="sending") for _ in range(3))
    response = _post(client, [
        {"id": "gw-1", "reference": str(first.id), "status": "buffered"},
        {"id": "gw-1", "reference": str(first.id), "status": "delivered"},
        {"id": "gw-2", "reference": str(second.id), "status": "delivered"},
        {"id": "gw-3", "reference": str(third.id), "status": "undeliverable"},
    ])

    assert response.status_code == 200 and response.get_json() == {"result": "success"}
    wait_for(lambda: status_of(third.id) == "permanent-failure")
    assert status_of(first.id) == "delivered" and status_of(second.id) == "delivered"


def test_one_receipt_object_is_still_taken(client, worker, service):
    sms = create_notification(service=service, status="sending")
    assert _post(client, {"id": "gw-1", "reference": str(sms.id), "status": "delivered"}).status_code == 200
    wait_for(lambda: status_of(sms.id) == "delivered")


def test_receipts_without_our_reference_match_by_the_providers_id(service):
    matched = create_notification(service=service, status="sending", provider_reference="gw-77")
    other = create_notification(service=service, status="sending", provider_reference="gw-78")

    moved = apply_receipts("http-gateway", [{"id": "gw-77", "status": "delivered"},
                                            {"id": 78, "reference": "not-ours", "status": "expired"},
                                            {"id": "gw-79", "status": "delivered"}])

    assert moved == 1
    assert status_of(matched.id) == "delivered" and status_of(other.id) == "sending"


def test_a_late_receipt_is_refused_without_failing_the_rest_of_its_batch(service, caplog):
    done = create_notification(service=service, status="delivered")
    waiting = create_notification(service=service, status="sending")
    repeated = create_notification(service=service, status="temporary-failure")

    with caplog.at_level(logging.WARNING, logger="pipeline.domain.statuses"):
        moved = apply_receipts("http-gateway", [
            {"id": "a", "reference": str(done.id), "status": "expired"},
            {"id": "b", "reference": str(waiting.id), "status": "expired"},
            {"id": "c", "reference": str(repeated.id), "status": "expired"},
        ])

    assert moved == 1
    assert [status_of(n.id) for n in (done, waiting, repeated)] == ["delivered", "temporary-failure",
                                                                    "temporary-failure"]
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert refused == [f"refused status change of {done.id} from delivered to temporary-failure"]


def test_a_receipt_out_of_order_is_counted_quietly_and_one_contradicting_the_outcome_warns(service, caplog):
    bounced = create_notification(service=service, status="permanent-failure")  # a bounce after acceptance
    pending = create_notification(service=service, status="delivered")
    failed = create_notification(service=service, status="technical-failure")
    moves = (("permanent-failure", "delivered"), ("delivered", "pending"), ("technical-failure", "delivered"))
    before = {move: out_of_order_count(*move) for move in moves}

    with caplog.at_level(logging.DEBUG, logger="pipeline.stages.status_changes"):
        moved = apply_receipts("http-gateway", [
            {"id": "a", "reference": str(bounced.id), "status": "delivered"},  # the acceptance's, late
            {"id": "b", "reference": str(pending.id), "status": "buffered"},  # a pending after delivered
            {"id": "c", "reference": str(failed.id), "status": "delivered"},  # told the service it failed
        ])

    assert moved == 0
    logged = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "pipeline.stages.status_changes"]
    assert [message for level, message in logged if level == "WARNING"] == [
        f"refused status change of {failed.id} from technical-failure to delivered"]
    assert {move: out_of_order_count(*move) - count for move, count in before.items()} == {
        ("permanent-failure", "delivered"): 1, ("delivered", "pending"): 1, ("technical-failure", "delivered"): 0}


def test_a_batch_move_tells_the_listeners_once_per_notification(service):
    heard: list[tuple[str, str]] = []
    listener = status_changes.on_change(lambda notification_id, status: heard.append((notification_id, status)))
    try:
        rows = [create_notification(service=service, status="sending") for _ in range(3)]
        status_changes.transition_many([r.id for r in rows] + [rows[0].id], statuses.DELIVERED)
    finally:
        status_changes._listeners.remove(listener)
    assert sorted(heard) == sorted((str(r.id), "delivered") for r in rows)


def test_batches_that_are_empty_too_long_or_malformed_are_refused(client):
    receipt = {"id": "gw-1", "status": "delivered"}
    empty, too_long = _post(client, []), _post(client, [receipt] * 1001)
    malformed = _post(client, [receipt, {"id": "gw-2"}])
    single_malformed = _post(client, {"id": "gw-3"})

    assert [r.status_code for r in (empty, too_long, malformed, single_malformed)] == [400] * 4
    assert empty.get_json()["errors"][0]["message"] == "[] should be non-empty"
    assert too_long.get_json()["errors"] == [  # by the count alone, before any receipt is looked at
        {"error": "BadRequestError", "message": "Too many items: at most 1000 in one request, got 1001"}]
    assert single_malformed.get_json()["errors"][0]["message"] == "status is a required property"


def test_a_batch_needs_the_provider_token(client):
    response = client.post(URL, json=[{"id": "gw-1", "status": "delivered"}], headers={"Authorization": "Bearer nope"})
    assert response.status_code == 403


def test_receipts_are_applied_before_the_webhook_answers_in_the_order_posted(client, service):
    sms = create_notification(service=service, status="sending")
    other = create_notification(service=service, status="sending")
    # No worker runs: what the webhook took is in the database by the time it answers.
    for receipt, status_after in (({"id": "gw-1", "reference": str(sms.id), "status": "buffered"}, "pending"),
                                  ({"id": "gw-1", "reference": str(sms.id), "status": "delivered"}, "delivered"),
                                  ({"id": "gw-2", "reference": str(other.id), "status": "undeliverable"}, "delivered")):
        assert _post(client, receipt).status_code == 200
        assert status_of(sms.id) == status_after
    assert status_of(other.id) == "permanent-failure"


def test_receipts_of_requests_arriving_together_are_applied_together_and_a_breaking_one_fails_alone(
        service, monkeypatch, caplog):
    from workers import receipts as receipts_worker

    good, bad = (create_notification(service=service, status="sending") for _ in range(2))
    applied: list[list[str]] = []

    def breaks_on_the_bad_one(provider, receipts):
        applied.append([r["reference"] for r in receipts])
        if any(r["reference"] == str(bad.id) for r in receipts):
            raise ValueError("a bug that one receipt meets")
        return apply_receipts(provider, receipts)

    monkeypatch.setitem(receipts_worker._APPLY, "receipt", breaks_on_the_bad_one)
    with caplog.at_level(logging.ERROR, logger="workers.receipts"):
        outcomes = receipts_worker._apply_together([
            ("receipt", "http-gateway", [{"id": "gw-1", "reference": str(good.id), "status": "delivered"}]),
            ("receipt", "http-gateway", [{"id": "gw-2", "reference": str(bad.id), "status": "delivered"}])])

    assert applied[0] == [str(good.id), str(bad.id)]  # one run for both requests first
    assert outcomes[0] is None and isinstance(outcomes[1], ValueError)
    assert "could not be applied together; applied request by request" in caplog.text
    assert status_of(good.id) == "delivered" and status_of(bad.id) == "sending"


def test_a_webhook_whose_receipts_cannot_be_stored_is_refused_so_the_gateway_posts_again(client, service,
                                                                                         monkeypatch):
    import peewee

    from workers import receipts as receipts_worker

    sms = create_notification(service=service, status="sending")

    def database_down(provider, receipts):
        raise peewee.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setitem(receipts_worker._APPLY, "receipt", database_down)
    response = _post(client, {"id": "gw-1", "reference": str(sms.id), "status": "delivered"})
    assert response.status_code == 503 and response.headers["Retry-After"] == "5"
    assert status_of(sms.id) == "sending"


def test_email_events_and_sms_receipts_are_applied_by_their_webhooks(client, service):
    sms = create_notification(service=service, status="sending")
    email = create_notification(service=service, notification_type="email", status="sending")
    headers = {"Authorization": f"Bearer {get_settings().provider_webhook_token}"}
    assert _post(client, {"id": "gw-1", "reference": str(sms.id), "status": "delivered"}).status_code == 200
    for event in ({"type": "delivered", "reference": str(email.id)},
                  {"type": "permanent-bounce", "reference": str(email.id), "detail": "550 5.1.1 user unknown"}):
        assert client.post("/providers/mail-relay/email-events", json=event, headers=headers).status_code == 200
    assert status_of(sms.id) == "delivered"
    assert status_of(email.id) == "permanent-failure"
