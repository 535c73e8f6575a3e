"""The operator commands the pages name are there, with the options they name; and the commands
tests/test_cli.py does not run."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.go_live import request_go_live
from models.audit import Actor, acting_as
from models.service import Service
from tests.admin_helpers import admin_headers
from workers.platform_email import send_platform_email

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# `flask --app app create-service --name "My service" --live`: the app, the command and what follows it.
_NAMED = re.compile(r"flask --app (app|console)\s+([a-z][a-z-]+)([^`\n]*)")


def _named_commands() -> list[tuple[str, str, list[str]]]:
    named = []
    for page in PAGES:
        for which, command, rest in _NAMED.findall(page.read_text()):
            named.append((which, command, re.findall(r"--[a-z][a-z-]*", rest)))
    return named


def test_the_pages_name_commands():
    named = {(which, command) for which, command, _options in _named_commands()}
    assert {("app", "create-service"), ("app", "admin-token"), ("app", "read-email-report"),
            ("console", "create-platform-admin-link")} <= named


def test_every_command_the_pages_name_is_there_with_the_options_they_name(app):
    from console import create_console_app

    commands = {"app": app.cli.commands, "console": create_console_app().cli.commands}
    missing = []
    for which, command, options in _named_commands():
        found = commands[which].get(command)
        given = {option for param in found.params for option in param.opts} if found else set()
        if found is None or not set(options) <= given:
            missing.append((which, command, options))
    assert not missing


@pytest.fixture
def cli(app):
    runner = app.test_cli_runner()

    def run(*args: str, ok: bool = True):
        result = runner.invoke(args=list(args))
        assert (result.exit_code == 0) is ok, (result.output, result.exception)
        return json.loads(result.stdout if ok else result.stderr)

    return run


def test_reject_go_live_tells_the_reason_and_keeps_the_service_in_trial(cli, client):
    sid = cli("create-service", "--name", "Tax office")["id"]
    client.post(f"/admin/services/{sid}/reply-to-addresses", json={"email_address": "help@example.nl"},
                headers=admin_headers())
    client.post(f"/admin/services/{sid}/templates", json={"type": "sms", "name": "hi", "body": "Hello"},
                headers=admin_headers())
    client.post(f"/admin/services/{sid}/users", json={"email_address": "colleague@example.nl"},
                headers=admin_headers())
    with acting_as(Actor("user", "7", "requester@example.nl")):
        request_go_live(sid, send_email=send_platform_email)

    rejected = cli("reject-go-live", "--service-id", sid, "--reason", "Templates are empty")
    assert rejected["trial_mode"] is True
    assert (rejected["request"]["status"], rejected["request"]["reason"]) == ("rejected", "Templates are empty")
    assert Service.get_by_id(sid).trial_mode is True
    assert cli("reject-go-live", "--service-id", sid, "--reason", "x", ok=False)["errors"] == [
        {"error": "BadRequestError", "message": "There is no request to go live waiting for a decision"}]
    history = cli("service-history", "--service-id", sid, "--limit", "1")["events"]
    assert [(event["action"], event["actor"]["kind"]) for event in history] == [("go_live.reject", "cli")]
