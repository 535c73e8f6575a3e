"""A process killed right after a change's commit, before the change's follow-up went to the broker
(tests/kill_after_commit.py): the periodic jobs the scheduler runs (the follow-up outbox's relay, the
sweeps) send what it left. A status callback and a fallback step after a gateway's receipts, an
inbound-text callback, a complaint's callback, a print batch's hand-over and a messages report each
still happen; each callback with its stable id, each fallback step once."""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

import config
from models.message_report import PENDING, READY, MessageReport
from models.notification import Notification, ReceivedText
from models.notification_event import NotificationEvent
from models.service import InboundNumber
from pipeline.stages.callbacks import CALLBACK_ID_HEADER, callback_id
from tests.conftest import running_worker, status_of, wait_for
from tests.factories import chain_of, create_key, create_notification, create_sample_template, create_service
from tests.test_callbacks import Receiver, register
from workers import periodic

ROOT = Path(__file__).resolve().parent.parent


def die_after_commit(what: str, **args: object) -> None:
    """Run one of tests/kill_after_commit.py's changes in a process of its own, which the commit kills."""
    env = {**os.environ, "MESSAGE_REPORT_BACKGROUND_ROWS": "0"}
    done = subprocess.run([sys.executable, "-m", "tests.kill_after_commit", what, json.dumps(args)], cwd=ROOT,
                          env=env, capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode(errors="replace")[-3000:]


@contextlib.contextmanager
def periodic_jobs() -> Iterator[None]:
    """A worker, and the scheduler's frequent jobs (the sweeps, and whatever else runs as often) sent
    to it every half second, as if STUCK_AFTER_SECONDS had passed since the kill."""
    before = config.get_settings()
    config._settings = dataclasses.replace(before, stuck_after_seconds=0)
    frequent = [job for _, interval, job in periodic.SCHEDULE if interval == before.sweep_interval_seconds]
    stop = threading.Event()

    def schedule() -> None:
        while not stop.wait(0.5):
            for job in frequent:
                job.send()

    thread = threading.Thread(target=schedule, daemon=True)
    try:
        with running_worker():
            thread.start()
            yield
    finally:
        stop.set()
        thread.join()
        config._settings = before


def ids_received(receiver: Receiver) -> set[str]:
    return {request.headers[CALLBACK_ID_HEADER] for request in list(receiver.requests)}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    yield receiver
    receiver.close()


def test_a_receipts_commit_killed_before_its_callbacks_and_fallback_steps_went(live_server, receiver):
    service = create_service()
    register(service, receiver)
    sms = create_sample_template(service=service)
    email = create_sample_template(service=service, template_type="email", body="Instead of the text")
    failing = [str(create_notification(service=service, template=sms, status="sending", fallback=[{
        "type": "email", "template_id": str(email.id), "email_address": f"anna+{i}@example.nl",
        "personalisation": {"name": "Anna"}}]).id)
        for i in range(6)]
    delivered = [str(create_notification(service=service, template=sms, status="sending").id) for _ in range(4)]

    def receipts(ids: list[str], state: str) -> list[dict]:
        return [{"id": f"sim-{each}", "reference": each, "status": state} for each in ids]

    die_after_commit("receipts", provider="simulated", receipts=receipts(delivered, "delivered"))
    die_after_commit("receipts", provider="simulated", receipts=receipts(failing, "undeliverable"))
    assert {status_of(each) for each in delivered} == {"delivered"}  # committed before each kill
    assert {status_of(each) for each in failing} == {"permanent-failure"}

    with periodic_jobs():
        steps = {each: str(wait_for(lambda each=each: chain_of(each).fallback_sent_as, timeout=60)) for each in failing}
        wait_for(lambda: {status_of(step) for step in steps.values()} == {"delivered"}, timeout=60)
        expected = {callback_id("delivery-status", each, "delivered") for each in [*delivered, *steps.values()]}
        expected |= {callback_id("delivery-status", each, "permanent-failure") for each in failing}
        wait_for(lambda: ids_received(receiver) >= expected, timeout=60)

    assert ids_received(receiver) == expected
    for request in receiver.requests:  # the same id names the same change, whatever the attempt
        body = request.json
        assert request.headers[CALLBACK_ID_HEADER] == callback_id("delivery-status", body["id"], body["status"])
    # One email sent instead of each failed text, and no more.
    emails = Notification.select().where(Notification.notification_type == "email")
    assert sorted(str(row.id) for row in emails) == sorted(steps.values())
    assert sorted(str(chain_of(row.id).fallback_for) for row in emails) == sorted(failing)


def test_an_inbound_text_killed_before_its_callback_went(live_server, receiver):
    service = create_service(permissions=["sms", "inbound_sms"])
    register(service, receiver, kind="inbound-sms")
    InboundNumber.create(number="+3197010000001", service=service)

    die_after_commit("inbound", provider="sms-gateway", to="+3197010000001", message="Stop", id="gw-1",
                     **{"from": "+31612345678"})
    text = ReceivedText.get()
    with periodic_jobs():
        wait_for(lambda: ids_received(receiver) == {callback_id("inbound-sms", str(text.id), "received")}, timeout=60)
    assert receiver.requests[0].json["message"] == "Stop"


def test_a_complaint_killed_before_its_callback_went(live_server, receiver):
    service = create_service()
    register(service, receiver, kind="complaint")
    email = create_notification(service=service, notification_type="email", status="delivered")

    die_after_commit("complaint", notification_id=str(email.id))
    assert NotificationEvent.select().count() == 1
    with periodic_jobs():
        wait_for(lambda: ids_received(receiver) == {callback_id("complaint", str(email.id), "complaint")}, timeout=60)
    assert receiver.requests[0].json["notification_id"] == str(email.id)


def test_a_print_run_killed_before_its_batch_was_handed_over(live_server):
    service = create_service(permissions=["letter"])
    template = create_sample_template(service=service, template_type="letter", body="Dear ((name))")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    address = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234 AB  AMSTERDAM",
               "name": "x"}
    letters = [api.send_letter_notification(str(template.id), address)["id"] for _ in range(3)]
    with running_worker():
        wait_for(lambda: all(Notification.get_by_id(each).billable_units is not None for each in letters), timeout=60)

    die_after_commit("print")
    claimed = Notification.select().where(Notification.id.in_(letters)
                                          & Notification.dispatch_started_at.is_null(False))
    assert claimed.count() == 3 and {status_of(each) for each in letters} == {"created"}
    with periodic_jobs():
        wait_for(lambda: {status_of(each) for each in letters} <= {"sending", "delivered"}, timeout=60)


def test_a_messages_report_asked_for_by_a_process_killed_before_it_was_queued(live_server):
    service = create_service()
    create_notification(service=service, status="delivered")

    die_after_commit("report", service_id=str(service.id), user_id=str(uuid.uuid4()))  # who asked is only kept
    [report] = MessageReport.select()
    assert report.status == PENDING
    with periodic_jobs():
        wait_for(lambda: MessageReport.get_by_id(report.id).status == READY, timeout=60)
