"""Links whose path or query is the credential never reach a log line: the console and the web
process served by gunicorn as the Procfile serves them, every line they write (access log, gunicorn's
own lines, the app's) searched for each link's secret after every kind of link was opened."""
from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import requests

from core.accounts import create_setup_link, invite, request_password_reset
from models.notification import Notification
from pipeline.stages.unsubscribe import token_for
from tests.api.test_download_page import RECIPIENT, download_href, link
from tests.conftest import _free_port
from tests.console.users import create_console_user
from tests.factories import create_notification, create_service

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def _served(app: str, ready_path: str, output: Path, *options: str) -> Iterator[str]:
    """gunicorn serving `app` with the project's gunicorn.conf.py, stdout and stderr into `output`."""
    port = _free_port()
    with output.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", app, "--bind", f"127.0.0.1:{port}", *options],
            cwd=ROOT, env={**os.environ, "WEB_ACCESS_LOG": "-"}, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(requests.RequestException):
                if requests.get(url + ready_path, timeout=5).status_code == 200:
                    break
            assert time.monotonic() < deadline, f"{app} did not answer within 30 s"
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def _path(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _messages(written: str) -> list[str]:
    """The messages of the JSON lines (every process writes one object a line)."""
    return [json.loads(line)["message"] for line in written.splitlines() if line.startswith("{")]


def _emailed_link(email_address: str) -> str:
    notification = Notification.get(Notification.to == email_address)
    return _path(notification.personalisation["url"])


def test_no_log_line_of_the_console_holds_an_invitation_set_up_or_reset_token(service, tmp_path):
    inviter = create_console_user(platform_admin=True)
    invite(service.id, "nieuw.lid@example.gov.nl", ["view_activity"], inviter.user)
    invitation = _emailed_link("nieuw.lid@example.gov.nl")
    setup = _path(create_setup_link())
    member = create_console_user()
    request_password_reset(member.email_address)
    reset = _emailed_link(member.email_address)
    tokens = [path.rsplit("/", 1)[1] for path in (invitation, setup, reset)]
    assert all(len(token) >= 40 for token in tokens)

    output = tmp_path / "console.log"
    # The Procfile's command; debug shows every line gunicorn itself can write about a request.
    with _served("console:app", "/sign-in", output, "--no-control-socket", "--log-level", "debug") as url:
        assert requests.get(url + invitation, timeout=10).status_code == 200
        assert requests.get(url + setup, timeout=10).status_code == 200
        assert requests.post(url + setup, data={"name": "x"}, timeout=10).status_code == 400  # no CSRF token
        assert requests.get(url + reset, timeout=10).status_code == 200
        assert requests.get(url + "/invitation/" + "x" * 43, timeout=10).status_code == 404

    written = output.read_text()
    for token in tokens:
        assert token not in written
    access = [match.groups() for message in _messages(written)
              if (match := re.search(r'"(GET|POST) (/[^" ]*)" (\d{3})', message))]
    assert access.count(("GET", "/invitation/***", "200")) == 2
    assert ("POST", "/invitation/***", "400") in access and ("GET", "/invitation/***", "404") in access
    assert ("GET", "/reset-password/***", "200") in access


def test_no_log_line_of_the_web_process_holds_an_unsubscribe_or_download_secret(tmp_path):
    service = create_service(name="Gemeente Voorbeeld", file_download_contact="help@voorbeeld.nl")
    notification = create_notification(service=service, notification_type="email", status="delivered")
    unsubscribe = f"/unsubscribe/{notification.id}/{token_for(str(notification.id))}"
    page = link(service, confirm_email_before_download=True)
    key = urllib.parse.parse_qs(urllib.parse.urlsplit(page).query)["key"][0]

    output = tmp_path / "web.log"
    # The Procfile's access line, then one with the whole request line and the Referer: the query
    # and a link carried in another header are masked too.
    for options in ((), ("--access-logformat", '"%(r)s" %(s)s referer="%(f)s"')):
        with _served("app:app", "/_status", output, *options) as url:
            assert requests.get(url + unsubscribe, timeout=10).status_code == 200
            assert requests.post(url + unsubscribe, timeout=10).status_code == 200
            confirmed = requests.post(url + page, data={"email_address": RECIPIENT}, timeout=10)
            download = download_href(confirmed.text)
            assert requests.get(url + download, headers={"Referer": url + page}, timeout=10).status_code == 200

    written = output.read_text()
    download_token = urllib.parse.parse_qs(urllib.parse.urlsplit(download).query)["token"][0]
    for secret in (unsubscribe.rsplit("/", 1)[1], key, download_token):
        assert secret not in written
    lines = "\n".join(_messages(written))
    masked_unsubscribe = f"/unsubscribe/{notification.id}/***"
    assert f'"GET {masked_unsubscribe}" 200' in lines and f'"POST {masked_unsubscribe}" 200' in lines
    file_page = page.split("?", 1)[0]
    assert f'"GET {file_page}/download?key=***&token=*** HTTP/1.1" 200 referer="http://127.0.0.1:' in lines
    assert f'{file_page}?key=***"' in lines
