"""Organisations: the public bodies whose services share members, domains and brands."""
from __future__ import annotations

import click
from flask import Flask

from cli.admin_requests import ask_admin_api


def register(app: Flask) -> None:
    @app.cli.command("create-organisation")
    @click.option("--name", required=True)
    @click.option("--kind", required=True, help="gemeente, provincie, waterschap, rijksoverheid, zbo or other")
    def create_organisation(name: str, kind: str) -> None:
        """Create an organisation (a public body whose services share members, domains and brands)."""
        ask_admin_api(app, "POST", "/organisations", {"name": name, "kind": kind})

    @app.cli.command("add-organisation-domain")
    @click.option("--organisation-id", required=True)
    @click.option("--domain", required=True, help="e.g. utrecht.nl: a new service of someone there joins it.")
    def add_organisation_domain(organisation_id: str, domain: str) -> None:
        """Claim an email domain for an organisation (refused when another has it)."""
        ask_admin_api(app, "POST", f"/organisations/{organisation_id}/domains", {"domain": domain})

    @app.cli.command("list-organisations")
    @click.option("--search", help="A part of a name or domain, or an id.")
    def list_organisations(search: str | None) -> None:
        """List organisations with their domains."""
        ask_admin_api(app, "GET", "/organisations", query={} if search is None else {"search": search})

    @app.cli.command("organisation-history")
    @click.option("--organisation-id", required=True)
    def organisation_history(organisation_id: str) -> None:
        """Every change made to an organisation, newest first."""
        ask_admin_api(app, "GET", f"/organisations/{organisation_id}/history")
