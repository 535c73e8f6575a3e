"""Cancelling a message before it leaves (pipeline/stages/cancel.py), raced against the print batch's claim and
the sender's claim in both orders: exactly one of them wins, and a cancelled letter never reaches the printer."""
from __future__ import annotations

import datetime
import json

import pytest

from models.db import utcnow
from models.notification import Notification
from pipeline.infrastructure.print_provider import SimulatedPrintProvider
from pipeline.stages import cancel, dispatch
from pipeline.stages.letters import printing
from tests.conftest import status_of
from tests.factories import create_notification
from tests.pipeline.test_letter_stages import ready_letter, storage  # noqa: F401  (fixture)


def _refused(notification) -> cancel.CancelRefused:
    with pytest.raises(cancel.CancelRefused) as refused:
        cancel.cancel(notification)
    return refused.value


def test_a_cancelled_letter_is_never_claimed_nor_handed_to_the_printer(service, storage, tmp_path):  # noqa: F811
    letter = ready_letter(service, storage)
    other = ready_letter(service, storage)
    done = cancel.cancel(letter)
    assert (done.notification.status, done.daily_limits) == ("cancelled", ("letter",))
    assert done.notification.completed_at is not None
    [(batch_id, _)] = printing.claim_batches()
    provider = SimulatedPrintProvider(tmp_path / "print")
    assert printing.send_batch(batch_id, provider, storage) == 1
    # The simulated printer answers for every letter it was handed: only the other one.
    answer = json.loads((tmp_path / "print" / "inbox" / f"{batch_id}.json").read_text())
    assert [entry["id"] for entry in answer["letters"]] == [str(other.id)]
    assert (status_of(letter.id), status_of(other.id)) == ("cancelled", "sending")
    assert Notification.get_by_id(letter.id).provider_reference is None


def test_a_letter_claimed_by_a_print_batch_first_is_too_late_to_cancel(service, storage):  # noqa: F811
    letter = ready_letter(service, storage)
    read_before_the_claim = Notification.get_by_id(letter.id)
    [(batch_id, _)] = printing.claim_batches(now=datetime.datetime(2026, 11, 24, 14, 5))
    refused = _refused(read_before_the_claim)
    assert (refused.reason, refused.messages) == (
        cancel.TOO_LATE_LETTER, ["It’s too late to cancel this letter. Printing started on 2026-11-24 at 14:05 UTC"])
    assert status_of(letter.id) == "created" and Notification.get_by_id(letter.id).provider_reference == batch_id


def test_letters_that_will_not_be_printed_and_cancelled_ones_are_refused(service):
    failed = create_notification(service=service, notification_type="letter", status="validation-failed")
    assert _refused(failed).messages == [
        "This letter cannot be cancelled because it will not be printed: its status is validation-failed"]
    checking = create_notification(service=service, notification_type="letter", status="pending-virus-check",
                                   precompiled=True)
    assert cancel.cancel(checking).notification.status == "cancelled"
    assert _refused(Notification.get_by_id(checking.id)).messages == ["This message has already been cancelled"]


def test_a_scheduled_sms_is_cancelled_until_due_and_its_delayed_send_then_skips_it(service):
    due = utcnow() + datetime.timedelta(hours=2)
    sms = create_notification(service=service, scheduled_for=due, international=True, key_type="live")
    done = cancel.cancel(sms)
    assert done.daily_limits == ("sms", "international_sms")
    assert dispatch.awaiting_dispatch(str(sms.id)) is None  # what the delayed send reads first
    assert dispatch.claim(Notification.get_by_id(sms.id)) is False


def test_a_scheduled_email_claimed_by_the_sender_first_is_too_late(service):
    email = create_notification(service=service, notification_type="email", scheduled_for=utcnow()
                                + datetime.timedelta(minutes=1), key_type="test")
    read_before_the_claim = Notification.get_by_id(email.id)
    assert dispatch.claim(Notification.get_by_id(email.id))
    refused = _refused(read_before_the_claim)
    assert refused.reason == cancel.TOO_LATE_SCHEDULED
    assert refused.messages[0].startswith("It’s too late to cancel this message. It was due to be sent on ")
    assert status_of(email.id) == "created"


def test_a_scheduled_message_past_due_and_one_sent_straight_away_are_refused(service):
    past = create_notification(service=service, scheduled_for=utcnow() - datetime.timedelta(seconds=1))
    assert _refused(past).reason == cancel.TOO_LATE_SCHEDULED
    # The database checks "not yet due" too: a row read while it was still early is refused once due.
    early = create_notification(service=service, scheduled_for=utcnow() + datetime.timedelta(hours=1))
    Notification.update(scheduled_for=utcnow() - datetime.timedelta(seconds=1)).where(
        Notification.id == early.id).execute()
    assert _refused(early).reason == cancel.TOO_LATE_SCHEDULED
    assert status_of(early.id) == "created"
    straight = create_notification(service=service, notification_type="email")
    assert _refused(straight).messages == [
        "Only a scheduled message can be cancelled. This message was sent straight away"]
    assert cancel.cancel(create_notification(service=service, key_type="test", scheduled_for=utcnow()
                                             + datetime.timedelta(hours=1))).daily_limits == ()


def test_cancels_racing_the_print_batch_never_leave_a_letter_both_cancelled_and_claimed(service, storage):  # noqa: F811
    import threading

    from models.db import database

    letters = [ready_letter(service, storage) for _ in range(60)]
    stale = [Notification.get_by_id(letter.id) for letter in letters]  # read before either moved
    start = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def cancel_all() -> None:
        with database.connection_context():
            start.wait()
            for row in stale:
                try:
                    cancel.cancel(row)
                    outcomes[str(row.id)] = "cancelled"
                except cancel.CancelRefused as refused:
                    outcomes[str(row.id)] = refused.reason

    def claim() -> None:
        with database.connection_context():
            start.wait()
            for _ in range(20):
                printing.claim_batches()

    threads = [threading.Thread(target=cancel_all), threading.Thread(target=claim)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for row in Notification.select().where(Notification.id.in_([letter.id for letter in letters])):
        if outcomes[str(row.id)] == "cancelled":
            assert (row.status, row.provider_reference, row.dispatch_started_at) == ("cancelled", None, None)
        else:
            assert outcomes[str(row.id)] == cancel.TOO_LATE_LETTER
            assert row.status == "created" and row.provider_reference is not None
