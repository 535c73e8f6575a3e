"""Operator commands: `flask --app app <command>`, each printing JSON.

Each command is the matching admin API request, answered in this process by the admin route itself
(with the options as the request body), so the CLI validates and answers exactly as the API does,
with no copy of its schemas or answers here. The operator at the keyboard needs no token: the
admin client's authentication is skipped, and the change is recorded as theirs. Errors print the
API's error body on stderr and exit with status 1.

One module per area, each registering its commands; `register_cli` registers them all from one list.
"""
from __future__ import annotations

from flask import Flask

from cli import admin_token, api_keys, email_reports, go_live, organisations, services, templates

# Every area's commands: a new area adds its module here.
AREAS = (services, api_keys, templates, go_live, organisations, admin_token, email_reports)


def register_cli(app: Flask) -> None:
    for area in AREAS:
        area.register(app)
