"""Operator commands: `flask --app app <command>`, each printing JSON.

Each command is the matching admin API request, answered in this process by the admin route itself
(with the options as the request body), so the CLI validates and answers exactly as the API does,
with no copy of its schemas or answers here. The operator at the keyboard needs no token: the
admin client's authentication is skipped, and the change is recorded as theirs. Errors print the
API's error body on stderr and exit with status 1.
"""
from __future__ import annotations

import getpass
import json
from typing import Any

import click
from flask import Flask

from config import get_settings
from core.tokens import create_token
from models import audit
from models.db import database


def _operator() -> audit.Actor:
    """The operator at the keyboard, as the audit trail names CLI changes."""
    try:
        login = getpass.getuser()
    except OSError:  # no login name in this environment (a bare container)
        login = "unknown"
    return audit.Actor("cli", login, f"{login} (CLI)")


def _request(app: Flask, method: str, path: str, body: dict[str, Any] | None = None,
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


def _split(values: str | None) -> list[str] | None:
    return None if values is None else [value.strip() for value in values.split(",") if value.strip()]


def register_cli(app: Flask) -> None:
    @app.cli.command("create-service")
    @click.option("--name", required=True)
    @click.option("--live", is_flag=True, help="Create it out of trial mode.")
    @click.option("--permissions",
                  help="Comma-separated, e.g. email,sms,letter (default email,sms,letter,international_sms).")
    def create_service(name: str, live: bool, permissions: str | None) -> None:
        """Create a service (in trial mode unless --live)."""
        data: dict[str, Any] = {"name": name, "trial_mode": not live}
        if permissions is not None:
            data["permissions"] = _split(permissions)
        _request(app, "POST", "/services", data)

    @app.cli.command("create-api-key")
    @click.option("--service-id", required=True)
    @click.option("--name", required=True)
    @click.option("--key-type", required=True, help="live, team or test")
    @click.option("--expires-at", help="ISO 8601 date-time (UTC without a zone) after which the key is refused.")
    def create_api_key(service_id: str, name: str, key_type: str, expires_at: str | None) -> None:
        """Create an API key; the printed key is not shown again."""
        data = {"name": name, "key_type": key_type, **({"expires_at": expires_at} if expires_at else {})}
        _request(app, "POST", f"/services/{service_id}/api-keys", data)

    @app.cli.command("rotate-api-key")
    @click.option("--service-id", required=True)
    @click.option("--key-id", required=True)
    @click.option("--overlap-seconds", required=True, type=int, help="How long the old key keeps working.")
    def rotate_api_key(service_id: str, key_id: str, overlap_seconds: int) -> None:
        """Replace an API key by a new one (printed once); the old one works on for the overlap."""
        _request(app, "POST", f"/services/{service_id}/api-keys/{key_id}/rotate", {"overlap_seconds": overlap_seconds})

    @app.cli.command("create-template")
    @click.option("--service-id", required=True)
    @click.option("--type", "template_type", required=True, help="sms, email or letter")
    @click.option("--name", required=True)
    @click.option("--body", required=True)
    @click.option("--subject", help="Email subject or letter heading.")
    @click.option("--postage", help="Letters: first, second (default), economy, europe, rest-of-world.")
    def create_template(service_id: str, template_type: str, name: str, body: str,
                        subject: str | None, postage: str | None) -> None:
        """Create a template (version 1)."""
        data = {"type": template_type, "name": name, "body": body, "subject": subject, "postage": postage}
        # Options left out are left out of the body, as an API caller would.
        _request(app, "POST", f"/services/{service_id}/templates", {k: v for k, v in data.items() if v is not None})

    @app.cli.command("go-live")
    @click.option("--service-id", required=True)
    def go_live_command(service_id: str) -> None:
        """Take a service out of trial mode (approving its request, if one waits) and tell its team."""
        _request(app, "POST", f"/services/{service_id}/go-live/approve")

    @app.cli.command("reject-go-live")
    @click.option("--service-id", required=True)
    @click.option("--reason", required=True, help="Told to the service's team.")
    def reject_go_live(service_id: str, reason: str) -> None:
        """Turn down a service's waiting request to go live."""
        _request(app, "POST", f"/services/{service_id}/go-live/reject", {"reason": reason})

    @app.cli.command("set-appearance")
    @click.option("--service-id", required=True)
    @click.option("--language", help="nl (the default) or en: what the service's recipients read.")
    @click.option("--email-brand-id", help="An email brand's id, or 'none'.")
    @click.option("--letter-brand-id", help="A letter brand's id, or 'none'.")
    def set_appearance(service_id: str, language: str | None, email_brand_id: str | None,
                       letter_brand_id: str | None) -> None:
        """Set a service's language and brands (as PATCH /admin/services/<id>/appearance)."""
        given = {"language": language, "email_brand_id": email_brand_id, "letter_brand_id": letter_brand_id}
        data = {key: None if value == "none" else value for key, value in given.items() if value is not None}
        _request(app, "PATCH", f"/services/{service_id}/appearance", data)

    @app.cli.command("service-history")
    @click.option("--service-id", required=True)
    @click.option("--limit", type=int, help="How many changes (default as the admin API's).")
    def service_history(service_id: str, limit: int | None) -> None:
        """Every change made to a service, newest first."""
        _request(app, "GET", f"/services/{service_id}/history", query={} if limit is None else {"limit": limit})

    @app.cli.command("list-services")
    def list_services() -> None:
        """List every service with its settings."""
        _request(app, "GET", "/services")

    @app.cli.command("create-organisation")
    @click.option("--name", required=True)
    @click.option("--kind", required=True, help="gemeente, provincie, waterschap, rijksoverheid, zbo or other")
    def create_organisation(name: str, kind: str) -> None:
        """Create an organisation (a public body whose services share members, domains and brands)."""
        _request(app, "POST", "/organisations", {"name": name, "kind": kind})

    @app.cli.command("add-organisation-domain")
    @click.option("--organisation-id", required=True)
    @click.option("--domain", required=True, help="e.g. utrecht.nl: a new service of someone there joins it.")
    def add_organisation_domain(organisation_id: str, domain: str) -> None:
        """Claim an email domain for an organisation (refused when another has it)."""
        _request(app, "POST", f"/organisations/{organisation_id}/domains", {"domain": domain})

    @app.cli.command("list-organisations")
    @click.option("--search", help="A part of a name or domain, or an id.")
    def list_organisations(search: str | None) -> None:
        """List organisations with their domains."""
        _request(app, "GET", "/organisations", query={} if search is None else {"search": search})

    @app.cli.command("organisation-history")
    @click.option("--organisation-id", required=True)
    def organisation_history(organisation_id: str) -> None:
        """Every change made to an organisation, newest first."""
        _request(app, "GET", f"/organisations/{organisation_id}/history")

    @app.cli.command("admin-token")
    def admin_token() -> None:
        """Print a fresh admin JWT (valid for 30 seconds), bare so it can go into a header."""
        settings = get_settings()
        click.echo(create_token(settings.admin_client_id, settings.admin_client_secret))


def register_report_reader(app: Flask) -> None:
    @app.cli.command("read-email-report")
    def read_email_report() -> None:
        """Read one bounce (RFC 3464) or abuse report (RFC 5965) on stdin, as an MTA pipe delivers it.

        A message that is neither is dropped with a note (exit 0: the MTA must not bounce it back);
        exit 75 (EX_TEMPFAIL) when the database is unreachable, so the MTA tries again later.
        """
        import sys

        from models.outages import UNAVAILABLE
        from pipeline.infrastructure.providers.email.events import to_json
        from pipeline.infrastructure.providers.email.reports import read_report
        from workers.receipts import apply_posted_email_events

        events = read_report(sys.stdin.buffer.read())
        if not events:
            click.echo("not a delivery status notification or abuse report: ignored", err=True)
            return
        try:
            apply_posted_email_events("smtp", [to_json(event) for event in events])
        except UNAVAILABLE as error:
            click.echo(f"database unavailable, try again later: {error}", err=True)
            raise click.exceptions.Exit(75) from None
        click.echo(json.dumps({"events": [to_json(event) for event in events]}))
