"""Worker processes killed (SIGKILL) at random moments while 300 live texts are sent with an email to
fall back on, a third of them to a number the simulator fails for good, and a delivery-status callback
configured; the web process that applies the receipts dies right after the commit of some of its
status changes (tests/kill_after_commit.py, armed through tests/chaos_gunicorn.conf.py), before their
callbacks and fallback steps went to the broker. Every final status change is called back at least
once (each expected X-Notify-Callback-Id arrives, and no other), every failed text has exactly one
email sent instead of it, and nothing else is sent."""
from __future__ import annotations

import contextlib
import os
import random
import signal
import sys
import threading
from pathlib import Path

from notifications_python_client.notifications import NotificationsAPIClient

from models.notification import Notification
from models.notification_fallback import NotificationFallback
from pipeline.stages.callbacks import CALLBACK_ID_HEADER, callback_id
from tests.conftest import _free_port, wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.faults import statuses_of, wait_until_final
from tests.private_servers import service_env, service_processes
from tests.test_callbacks import Receiver, register

TEXTS = 300
FAILS = "+4917700900002"  # ends 7700900002: the simulator fails it for good (sent abroad: `sent` first)
DELIVERED = "0612345678"
WORKER_KILLS = 6
KILL_AFTER_COMMIT_EVERY = 25  # status changes of a web worker between kills right after their commit


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def _kill_workers(supervisor: int, stop: threading.Event, killed: list[int]) -> None:
    """Every 1-4 s, SIGKILL one of the Dramatiq worker processes (the supervisor's grandchildren)."""
    chance = random.Random()
    while len(killed) < WORKER_KILLS and not stop.wait(chance.uniform(1.0, 4.0)):
        workers = [pid for master in _children(supervisor) for pid in _children(master)]
        if workers:
            victim = chance.choice(workers)
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)


def _send(api: NotificationsAPIClient, templates: dict[str, str], i: int) -> tuple[str, str]:
    """The i-th text, with its email alternative: (its id, the alternative's address)."""
    address = f"anna+{i}@example.nl"
    sent = api.post("/v2/notifications/sms", {
        "phone_number": FAILS if i % 3 == 0 else DELIVERED, "template_id": templates["sms"],
        "personalisation": {"name": "Anna"}, "reference": f"chaos-{i}",
        "fallback": [{"type": "email", "template_id": templates["email"], "email_address": address}]})
    return sent["id"], address


def test_killed_workers_lose_no_callback_and_take_each_fallback_step_once(tmp_path):
    service = create_service()
    receiver = Receiver()
    register(service, receiver)
    templates = {kind: str(create_sample_template(service=service, template_type=kind, body="Hi ((name))").id)
                 for kind in ("sms", "email")}
    kills = tmp_path / "kills-after-commit"
    webhooks = _free_port()
    env = service_env(KILL_AFTER_COMMIT_EVERY=str(KILL_AFTER_COMMIT_EVERY), KILL_AFTER_COMMIT_FILE=str(kills))
    stop, killed = threading.Event(), []
    try:
        with service_processes(env, base_url=f"http://127.0.0.1:{webhooks}", logs=tmp_path) as processes:
            # The webhooks (BASE_URL: where the simulator posts its receipts) on a web process of their own,
            # whose workers die after commits; the API's web process is never killed.
            processes.start("webhooks", sys.executable, "-m", "gunicorn", "app:app", "-c",
                            "tests/chaos_gunicorn.conf.py", "--bind", f"127.0.0.1:{webhooks}")
            api = NotificationsAPIClient(create_key(service=service), base_url=processes.url)
            killer = threading.Thread(target=_kill_workers, args=(processes.running["worker"].pid, stop, killed),
                                      daemon=True)
            killer.start()
            texts = dict(_send(api, templates, i) for i in range(TEXTS))

            final = wait_until_final(list(texts), timeout=600)
            failed = [text for text, status in final.items() if status == "permanent-failure"]
            assert sorted(final.values()) == sorted(["permanent-failure"] * len(failed)
                                                    + ["delivered"] * (TEXTS - len(failed)))
            assert len(failed) == TEXTS // 3
            steps = wait_for(lambda: _steps(failed), timeout=600, interval=0.5)
            emails = wait_until_final(list(steps.values()), timeout=600)
            # A failing text is international: recorded `sent` (final, so called back) before it fails.
            changes = [*{**final, **emails}.items(), *((each, "sent") for each in failed)]
            expected = {callback_id("delivery-status", each, status): each for each, status in changes}
            wait_for(lambda: _received(receiver) >= set(expected), timeout=600, interval=0.5)
            stop.set()
            killer.join()
            assert processes.running["worker"].poll() is None, processes.log("worker")[-3000:]
    finally:
        stop.set()
        receiver.close()

    # The kills happened: worker processes at random, web workers right after a commit.
    assert len(killed) >= 1 and len(kills.read_text().splitlines()) >= 1
    # Each final status change called back with its stable id, and nothing else; a repeat carries the id
    # of the change it repeats (its body says the notification's status when it was posted).
    assert [(r.json["id"], r.json["status"]) for r in receiver.requests
            if r.headers[CALLBACK_ID_HEADER] not in expected] == []
    assert [r.json["id"] for r in receiver.requests if expected[r.headers[CALLBACK_ID_HEADER]] != r.json["id"]] == []
    # One email sent instead of each failed text, to its alternative's address, and no other message.
    assert set(emails.values()) == {"delivered"}
    assert {str(row.id): row.to for row in Notification.select().where(Notification.notification_type == "email")} \
        == {steps[text]: texts[text] for text in failed}
    assert Notification.select().count() == TEXTS + len(failed)
    assert statuses_of(texts) == final


def _steps(failed: list[str]) -> dict[str, str] | None:
    """The email sent instead of each failed text, once every one has its own."""
    links = {str(link.fallback_for): str(link.notification_id) for link in NotificationFallback.select().where(
        NotificationFallback.fallback_for.in_(failed))}
    sent_as = {str(link.notification_id): str(link.sent_as) for link in NotificationFallback.select().where(
        NotificationFallback.notification.in_(failed) & NotificationFallback.sent_as.is_null(False))}
    return links if len(links) == len(failed) and sent_as == links else None


def _received(receiver: Receiver) -> set[str]:
    return {request.headers[CALLBACK_ID_HEADER] for request in list(receiver.requests)}

