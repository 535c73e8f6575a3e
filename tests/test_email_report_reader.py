"""The MTA pipe (`flask --app app read-email-report`) as docs/delivery.md describes it: the events go
into the database before it exits; exit 75 only when the database is unreachable, so Redis being
away loses no bounce and bounces nothing back."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from models.notification import Notification
from tests.conftest import _free_port
from tests.factories import create_notification, create_service
from tests.test_email_events import dsn

ROOT = Path(__file__).resolve().parent.parent


def _read_report(report: bytes, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flask", "--app", "app", "read-email-report"], input=report,
                          cwd=ROOT, env={**os.environ, **env}, capture_output=True, timeout=120)


def test_a_bounce_read_while_redis_is_unreachable_is_recorded():
    email = create_notification(service=create_service(), notification_type="email", status="sending")
    message_id = f"<{email.id}@notify.localhost>"
    done = _read_report(dsn(message_id), REDIS_URL=f"redis://127.0.0.1:{_free_port()}/0")
    assert done.returncode == 0, done.stderr.decode()
    assert Notification.get_by_id(email.id).status == "permanent-failure"


def test_the_mta_is_asked_to_try_again_while_the_database_is_unreachable():
    email = create_notification(service=create_service(), notification_type="email", status="sending")
    done = _read_report(dsn(f"<{email.id}@notify.localhost>"),
                        DATABASE_URL=f"postgresql://postgres@127.0.0.1:{_free_port()}/notify")
    assert done.returncode == 75, done.stderr.decode()
    assert b"database unavailable, try again later" in done.stderr
    assert Notification.get_by_id(email.id).status == "sending"
