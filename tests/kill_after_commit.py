"""A process that dies right after a commit, before anything that commit's callbacks send: what a
SIGKILL, an OOM kill or a deploy does to a process between a change's commit and its follow-up's
queue message. Armed only by the tests, in processes they start:

- `arm(every, kills)`, called in a web worker once it has loaded the app (tests/chaos_gunicorn.conf.py):
  every `every`-th status change it makes kills it right after that change commits, as long as the
  file `kills` holds fewer than KILLS_AT_MOST lines (each kill adds one first).
- `python -m tests.kill_after_commit <what> <json>`: do one thing the way the service does it, in a
  process of its own that dies right after its commit (tests/test_follow_ups_killed.py):
    receipts   {"provider": ..., "receipts": [...]}   a gateway's receipts, as the webhook applies them
    inbound    {"provider": ..., "to": ..., "from": ..., "message": ..., "id": ...}   a received text
    complaint  {"notification_id": ...}                 an email's complaint, as a provider reports it
    print      {}                                       the print run: claims letters into batches
    report     {"service_id": ..., "user_id": ...}     a messages report a console user asks for
"""
from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from models.db import database
from pipeline.stages import status_changes

KILLS_AT_MOST = 6


def kill_after_commit() -> None:
    """SIGKILL this process once the current transaction commits, before the commit's other callbacks
    (registered after this one) run; at once outside a transaction, the change already committed."""
    database.after_commit(lambda: os.kill(os.getpid(), signal.SIGKILL))


def arm(every: int, kills: Path | None = None) -> None:
    """Die after the commit of every `every`-th status change of this process (see the docstring);
    without `kills`, at the first one that is due."""
    changes = [0]

    def listener(notification_id: str, new_status: str) -> None:
        changes[0] += 1
        if changes[0] % every:
            return
        if kills is not None:
            if kills.exists() and len(kills.read_text().splitlines()) >= KILLS_AT_MOST:
                return
            with kills.open("a") as record:
                record.write(f"{os.getpid()} {notification_id} {new_status}\n")
        kill_after_commit()

    # First of the listeners, so that the kill comes before anything the others send after the commit.
    status_changes.on_change(listener)
    status_changes._listeners.insert(0, status_changes._listeners.pop())


def _receipts(args: dict) -> None:
    from workers.receipts import apply_posted_receipts

    arm(1)
    apply_posted_receipts(args["provider"], args["receipts"])


def _inbound(args: dict) -> None:
    from api.providers.inbound_sms import take_text

    with database.atomic():
        kill_after_commit()
        take_text(args["provider"], to=args["to"], sender=args["from"], message=args["message"],
                  provider_id=args["id"])


def _complaint(args: dict) -> None:
    from pipeline.infrastructure.providers.email.events import from_json
    from pipeline.stages.email_events import apply_email_events

    with database.atomic():
        kill_after_commit()
        apply_email_events("smtp", [from_json({"type": "complaint", "reference": args["notification_id"],
                                               "detail": "abuse"})])


def _print(args: dict) -> None:
    from workers.letters import print_letters

    with database.atomic():
        kill_after_commit()
        print_letters.fn()


def _report(args: dict) -> None:
    from core.message_reports import background_report
    from models.service import Service
    from pipeline.infrastructure.message_search import MessageSearch

    with database.atomic():
        kill_after_commit()
        background_report(Service.get_by_id(args["service_id"]), args["user_id"], MessageSearch())


RUN = {"receipts": _receipts, "inbound": _inbound, "complaint": _complaint, "print": _print, "report": _report}

if __name__ == "__main__":
    from workers import wire

    wire()
    database.connect(reuse_if_open=True)
    RUN[sys.argv[1]](json.loads(sys.argv[2]))
    sys.exit("the process was to die after its commit, and did not")
