"""How a command answers: as the matching admin API request, dispatched to the admin route in this
process, as the operator at the keyboard."""
from __future__ import annotations

import getpass
import json
from typing import Any

import click
from flask import Flask

from models import audit
from models.db import database


def _operator() -> audit.Actor:
    """The operator at the keyboard, as the audit trail names CLI changes."""
    try:
        login = getpass.getuser()
    except OSError:  # no login name in this environment (a bare container)
        login = "unknown"
    return audit.Actor("cli", login, f"{login} (CLI)")


def ask_admin_api(app: Flask, method: str, path: str, body: dict[str, Any] | None = None,
                  query: dict[str, Any] | None = None) -> None:
    """Answer an admin API request in this process, as the operator: print the answer, or the
    refusal on stderr and exit 1."""
    with database.connection_context(), audit.acting_as(_operator()):
        with app.test_request_context(f"/admin{path}", method=method, json=body, query_string=query):
            try:
                response = app.make_response(app.dispatch_request())
            except Exception as error:  # noqa: BLE001  (a refusal: the API's own error body for it)
                response = app.make_response(app.handle_user_exception(error))
    refused = response.status_code >= 400
    click.echo(json.dumps(response.get_json(), indent=2), err=refused)
    if refused:
        raise click.exceptions.Exit(1)
